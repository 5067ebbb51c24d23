import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Finding, Severity } from '../model/finding';
import type { Range } from '../model/positions';
import type { Task } from '../model/task';
import { RULES, ruleMeta } from './registry';

/** One audited task, as the report writers take it. */
export interface AuditedTask {
  readonly task: Task;
  /** As given on the command line or relative to the working directory (POSIX separators). */
  readonly path: string;
  readonly findings: readonly Finding[];
}

const LEVEL: Readonly<Record<Severity, 'error' | 'warning' | 'note'>> = { error: 'error', warning: 'warning', info: 'note' };

/** The folder holding docs/rules, found from wherever this module was bundled or transpiled to. */
function docsRoot(): string | undefined {
  for (let d = __dirname; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'docs', 'rules'))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** `TASKWRIGHT_DOCS_URL` (e.g. a repository's blob URL) or the installed docs as file: URIs. */
export function ruleHelpUri(id: string, base = process.env['TASKWRIGHT_DOCS_URL']): string {
  if (base) return `${base.replace(/\/+$/, '')}/${id}.md`;
  const root = docsRoot();
  return root ? pathToFileURL(path.join(root, 'docs', 'rules', `${id}.md`)).href : `https://taskwright.invalid/docs/rules/${id}.md`;
}

function region(r: Range): Record<string, number> {
  const startLine = r.start.line + 1;
  const startColumn = r.start.character + 1;
  const endLine = Math.max(startLine, r.end.line + 1);
  const endColumn = Math.max(1, r.end.character + 1);
  return endLine === startLine && endColumn < startColumn ? { startLine, startColumn } : { startLine, startColumn, endLine, endColumn };
}

function uriOf(taskPath: string, file: string): string {
  const joined = path.posix.join(taskPath, file);
  return joined.split('/').map(encodeURIComponent).join('/');
}

/** A SARIF 2.1.0 log: one run, every rule in the table, locations relative to `%SRCROOT%` (the working directory). */
export function toSarif(tasks: readonly AuditedTask[], cwd: string, version: string): object {
  const used = new Set<string>();
  for (const t of tasks) for (const f of t.findings) used.add(f.rule);
  const ids = [...RULES.map((r) => r.id), ...[...used].filter((id) => !ruleMeta(id)).sort()];
  const index = new Map(ids.map((id, i) => [id, i]));
  const rules = ids.map((id) => {
    const m = ruleMeta(id);
    const title = m?.title ?? id;
    return {
      id,
      name: id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()),
      shortDescription: { text: title },
      fullDescription: { text: `${title} (${m?.class ?? 'invalidity'}; ${m?.source ?? 'loader'} rule). See the rule page for why it matters and how to fix it.` },
      helpUri: ruleHelpUri(id),
      defaultConfiguration: { level: LEVEL[m?.severity ?? 'warning'] },
      properties: { tags: [m?.class ?? 'invalidity'], source: m?.source ?? 'loader' },
    };
  });
  const results = [];
  for (const t of tasks) {
    for (const f of t.findings) {
      const file = f.file ?? t.task.configFile;
      const physicalLocation = { artifactLocation: { uri: uriOf(t.path, file), uriBaseId: '%SRCROOT%' }, ...(f.file && f.range ? { region: region(f.range) } : {}) };
      results.push({
        ruleId: f.rule,
        ruleIndex: index.get(f.rule) ?? 0,
        level: LEVEL[f.severity],
        message: { text: f.message },
        locations: [{ physicalLocation }],
        ...(f.related && f.related.length
          ? { relatedLocations: f.related.map((r, i) => ({ id: i + 1, message: { text: r.message }, physicalLocation: { artifactLocation: { uri: uriOf(t.path, r.file), uriBaseId: '%SRCROOT%' }, ...(r.range ? { region: region(r.range) } : {}) } })) }
          : {}),
        properties: { class: f.class, task: t.task.id },
      });
    }
  }
  const base = pathToFileURL(cwd.endsWith(path.sep) ? cwd : `${cwd}${path.sep}`).href;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'taskwright', version, informationUri: 'https://github.com/harbor-framework/terminal-bench', rules } },
      originalUriBaseIds: { '%SRCROOT%': { uri: base } },
      results,
      columnKind: 'utf16CodeUnits',
    }],
  };
}
