import { SEVERITY_ORDER, type Finding } from '../../core/model/finding';
import type { Task } from '../../core/model/task';
import { findingToJson, type FindingJson } from '../../core/report/findingJson';
import { loadTargets } from '../targets';
import { boolOpt, type CliCommand, type CliIo, type ParsedArgs } from '../command';

/** `taskwright list --json`: one stable, versioned shape (documented in the README). */
export interface ListJson {
  readonly version: 1;
  readonly tasks: readonly ListTaskJson[];
}

export interface ListTaskJson {
  readonly path: string;
  readonly id: string;
  readonly format: Task['format'];
  readonly difficulty: Task['metadata']['difficulty'];
  readonly category: string;
  readonly tags: readonly string[];
  readonly timeouts: { readonly agentSec: number; readonly verifierSec: number; readonly buildSec: number };
  readonly problems: readonly ListProblemJson[];
}

/** A loading problem: the audit's finding shape without the end position. */
export type ListProblemJson = Omit<FindingJson, 'endLine' | 'endColumn'>;

export const listCommand: CliCommand = {
  name: 'list',
  summary: 'List the tasks under folders, with their format, metadata and loading problems',
  usage: [
    'taskwright list [PATH...] [--json]',
    '',
    '  PATH     a folder to search for tasks (task.yaml or task.toml), or a task folder; default "."',
    '  --json   print {"version":1,"tasks":[...]} instead of text',
    '',
    'Exit status: 0 when the tasks were listed (even with problems), 2 on usage errors.',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const shown = (await loadTargets(args.positionals, io)).map((t) => toJson(t.task, t.path));
    if (boolOpt(args, 'json')) {
      const out: ListJson = { version: 1, tasks: shown };
      io.out(JSON.stringify(out, null, 2));
    } else {
      io.out(renderText(shown));
    }
    return 0;
  },
};

function toJson(t: Task, shownPath: string): ListTaskJson {
  const problems = [...t.problems].sort(byPosition).map((f): ListProblemJson => {
    const { endLine: _endLine, endColumn: _endColumn, ...problem } = findingToJson(f);
    return problem;
  });
  return {
    path: shownPath,
    id: t.id,
    format: t.format,
    difficulty: t.metadata.difficulty,
    category: t.metadata.category,
    tags: t.metadata.tags,
    timeouts: { agentSec: t.timeouts.agentSec, verifierSec: t.timeouts.verifierSec, buildSec: t.timeouts.buildSec },
    problems,
  };
}

function byPosition(a: Finding, b: Finding): number {
  return (a.file ?? '').localeCompare(b.file ?? '')
    || (a.range?.start.line ?? -1) - (b.range?.start.line ?? -1)
    || (a.range?.start.character ?? -1) - (b.range?.start.character ?? -1)
    || SEVERITY_ORDER[b.severity] - SEVERITY_ORDER[a.severity];
}

/** One line per task, then its problems as `file:line:col severity rule message` (paths clickable from the cwd). */
export function renderText(tasks: readonly ListTaskJson[]): string {
  if (tasks.length === 0) return 'No tasks found (a task is a folder holding task.yaml or task.toml).';
  const width = Math.max(...tasks.map((t) => t.path.length));
  const categoryWidth = Math.max(...tasks.map((t) => t.category.length));
  const lines: string[] = [];
  let problemCount = 0;
  let errorCount = 0;
  for (const t of tasks) {
    const n = t.problems.length;
    problemCount += n;
    errorCount += t.problems.filter((p) => p.severity === 'error').length;
    lines.push(`${t.path.padEnd(width)}  ${t.format.padEnd(6)}  ${t.difficulty.padEnd(7)}  ${t.category.padEnd(categoryWidth)}  ${n === 0 ? 'ok' : `${n} problem${n === 1 ? '' : 's'}`}`);
    for (const p of t.problems) {
      const file = p.file === null ? t.path : `${t.path === '.' ? '' : `${t.path}/`}${p.file}`;
      const at = p.line === null ? file : `${file}:${p.line}:${p.column ?? 1}`;
      lines.push(`  ${at} ${p.severity} ${p.rule} ${p.message}`);
    }
  }
  lines.push('');
  lines.push(`${tasks.length} task${tasks.length === 1 ? '' : 's'}, ${problemCount} problem${problemCount === 1 ? '' : 's'} (${errorCount} error${errorCount === 1 ? '' : 's'})`);
  return lines.join('\n');
}
