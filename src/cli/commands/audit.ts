import path from 'node:path';
import { auditTask } from '../../core/audit/index';
import { toSarif, type AuditedTask } from '../../core/audit/sarif';
import { SEVERITY_ORDER, type Severity } from '../../core/model/finding';
import { findingToJson, type FindingJson } from '../../core/report/findingJson';
import { choiceOpt, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { loadTargets } from '../targets';
import { VERSION } from '../version';

const FORMATS = ['text', 'json', 'sarif'] as const;
const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;

export interface AuditJson {
  readonly version: 1;
  readonly tool: 'taskwright';
  readonly tasks: readonly { readonly path: string; readonly id: string; readonly format: string; readonly findings: readonly FindingJson[] }[];
}

export const auditCommand: CliCommand = {
  name: 'audit',
  summary: 'Audit tasks for brittle harnesses, misaligned rewards and invalid setups (static, no Docker)',
  usage: [
    'taskwright audit PATH... [--format text|json|sarif] [--fail-on error|warning|info|never]',
    '',
    '  PATH        a folder to search for tasks, or a task folder; default "."',
    '  --format    text (default, grouped by task), json ({"version":1,"tool":"taskwright","tasks":[...]}),',
    '              or sarif (SARIF 2.1.0 for code scanning)',
    '  --fail-on   exit 1 when a finding is at least this severe (default error); never: always exit 0',
    '',
    'Per-folder rule settings: taskwright.json or .taskwright.yaml {"rules": {"<rule-id>": "off|info|warning|error"}}',
    '(the nearest folder wins). Inline: `# taskwright: ignore[rule-id]` on the line or the line above.',
    'Exit status: 0 clean, 1 a finding reached --fail-on, 2 usage error.',
  ].join('\n'),
  options: { format: { type: 'string' }, 'fail-on': { type: 'string' } },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const format = choiceOpt(args, 'format', FORMATS, 'text');
    const failOn = choiceOpt(args, 'fail-on', FAIL_ON, 'error');
    const audited: AuditedTask[] = [];
    for (const { task, path } of await loadTargets(args.positionals, io)) {
      const findings = await auditTask(task, { signal: io.signal });
      audited.push({ task, path, findings });
    }
    if (format === 'json') {
      const out: AuditJson = { version: 1, tool: 'taskwright', tasks: audited.map((a) => ({ path: a.path, id: a.task.id, format: a.task.format, findings: a.findings.map(findingToJson) })) };
      io.out(JSON.stringify(out, null, 2));
    } else if (format === 'sarif') {
      io.out(JSON.stringify(toSarif(audited, io.cwd, VERSION), null, 2));
    } else {
      io.out(renderText(audited));
    }
    if (failOn === 'never') return 0;
    const threshold = SEVERITY_ORDER[failOn as Severity];
    return audited.some((a) => a.findings.some((f) => SEVERITY_ORDER[f.severity] >= threshold)) ? 1 : 0;
  },
};

/** Grouped by task; each finding as `path/file:line:col  severity  rule  message` (clickable from the cwd). */
export function renderText(tasks: readonly AuditedTask[]): string {
  if (tasks.length === 0) return 'No tasks found (a task is a folder holding task.yaml or task.toml).';
  const lines: string[] = [];
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const t of tasks) {
    lines.push(`${t.path} (${t.task.format})${t.findings.length === 0 ? '  ok' : ''}`);
    for (const f of t.findings) {
      counts[f.severity]++;
      const where = f.file ? `${path.posix.join(t.path, f.file)}${f.range ? `:${f.range.start.line + 1}:${f.range.start.character + 1}` : ''}` : t.path;
      lines.push(`  ${where}  ${f.severity}  ${f.rule}  ${f.message}`);
      for (const r of f.related ?? []) lines.push(`    ↳ ${path.posix.join(t.path, r.file)}${r.range ? `:${r.range.start.line + 1}` : ''}  ${r.message}`);
    }
  }
  lines.push('', `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info`);
  return lines.join('\n');
}
