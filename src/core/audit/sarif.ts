import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Finding, Severity } from '../model/finding';
import type { Range } from '../model/positions';
import type { BaselineState } from './baseline';
import { RULES, ruleMeta } from './registry';

/** Taskwright's home page: SARIF's `informationUri`. */
export const TASKWRIGHT_URL = 'https://github.com/taskwright/taskwright';
/**
 * Where the rule pages (docs/rules/<id>.md) are published, unless `--docs-url` or
 * `TASKWRIGHT_DOCS_URL` names another base: the docs folder of Taskwright's repository.
 */
export const DEFAULT_DOCS_URL = `${TASKWRIGHT_URL}/blob/main/docs/rules`;

export const SARIF_LEVEL: Readonly<Record<Severity, 'error' | 'warning' | 'note'>> = { error: 'error', warning: 'warning', info: 'note' };

/** The https page of a rule under `base` (a documented setting; see DEFAULT_DOCS_URL). */
export function ruleHelpUri(id: string, base: string = DEFAULT_DOCS_URL): string {
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(id)}.md`;
}

/** A docs base for SARIF: https only (code scanning links it from every alert). */
export function checkDocsUrl(base: string): string | undefined {
  try {
    const u = new URL(base);
    return u.protocol === 'https:' ? undefined : `the rule docs base must be an https URL (got '${base}')`;
  } catch {
    return `the rule docs base is not a URL: '${base}'`;
  }
}

/** A finding as SARIF sees it: where it is relative to %SRCROOT% (POSIX, never absolute or ../). */
export interface SarifFinding extends Finding {
  readonly fp: string;
  readonly baseline?: BaselineState;
  readonly convention?: number;
}

export interface SarifTask {
  readonly id: string;
  readonly dataset: string;
  /** The task folder relative to the source root (POSIX; '.' when it is the root). */
  readonly rel: string;
  readonly configFile: string;
}

function region(r: Range): Record<string, number> {
  const startLine = r.start.line + 1;
  const startColumn = r.start.character + 1;
  const endLine = Math.max(startLine, r.end.line + 1);
  const endColumn = Math.max(1, r.end.character + 1);
  return endLine === startLine && endColumn < startColumn ? { startLine, startColumn } : { startLine, startColumn, endLine, endColumn };
}

/** A path relative to %SRCROOT%, percent-encoded per segment. Throws on a path that leaves the root. */
export function relativeUri(taskRel: string, file: string): string {
  const joined = path.posix.normalize(path.posix.join(taskRel, file));
  if (path.posix.isAbsolute(joined) || joined === '..' || joined.startsWith('../')) throw new Error(`${joined} is outside the SARIF source root`);
  return joined.split('/').map(encodeURIComponent).join('/');
}

/**
 * The source root every SARIF location is relative to: the working directory when every given path
 * lies inside it (the checkout, for code scanning), else the deepest folder holding them all.
 */
export function sarifRoot(cwd: string, roots: readonly string[]): string {
  const abs = roots.map((r) => path.resolve(cwd, r));
  const inside = (p: string, dir: string): boolean => { const rel = path.relative(dir, p); return !rel.startsWith('..') && !path.isAbsolute(rel); };
  if (abs.every((p) => inside(p, cwd))) return path.resolve(cwd);
  let common = abs[0] ?? cwd;
  while (!abs.every((p) => inside(p, common))) common = path.dirname(common);
  return common;
}

export function sarifRules(used: ReadonlySet<string>, docsBase: string): { readonly ids: readonly string[]; readonly rules: readonly object[] } {
  const ids = [...RULES.map((r) => r.id), ...[...used].filter((id) => !ruleMeta(id)).sort()];
  const rules = ids.map((id) => {
    const m = ruleMeta(id);
    const title = m?.title ?? id;
    return {
      id,
      name: id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()),
      shortDescription: { text: title },
      fullDescription: { text: `${title} (${m?.class ?? 'invalidity'}; ${m?.source ?? 'loader'} rule). See the rule page for why it matters and how to fix it.` },
      helpUri: ruleHelpUri(id, docsBase),
      defaultConfiguration: { level: SARIF_LEVEL[m?.severity ?? 'warning'] },
      properties: { tags: [m?.class ?? 'invalidity'], source: m?.source ?? 'loader' },
    };
  });
  return { ids, rules };
}

function location(uri: string, r: Range | undefined): object {
  return { artifactLocation: { uri, uriBaseId: '%SRCROOT%' }, ...(r ? { region: region(r) } : {}) };
}

/** One SARIF result. */
export function sarifResult(t: SarifTask, f: SarifFinding, ruleIndex: number): object {
  const file = f.file ?? t.configFile;
  return {
    ruleId: f.rule,
    ruleIndex,
    level: SARIF_LEVEL[f.severity],
    message: { text: f.message },
    locations: [{ physicalLocation: location(relativeUri(t.rel, file), f.file ? f.range : undefined) }],
    ...(f.related && f.related.length
      ? { relatedLocations: f.related.map((r, i) => ({ id: i + 1, message: { text: r.message }, physicalLocation: location(relativeUri(t.rel, r.file), r.range) })) }
      : {}),
    partialFingerprints: { 'taskwrightLineText/v1': `${f.rule}:${f.fp}` },
    ...(f.baseline ? { baselineState: f.baseline } : {}),
    properties: { class: f.class, task: t.id, dataset: t.dataset, ...(f.convention !== undefined ? { convention: f.convention } : {}) },
  };
}

/** A baseline entry no finding matched any more: reported with `baselineState: absent`. */
export function sarifAbsentResult(e: { rule: string; file: string; fp: string; severity: Severity; message: string; line: number | null }, baseRel: string, ruleIndex: number): object {
  return {
    ruleId: e.rule,
    ruleIndex,
    level: SARIF_LEVEL[e.severity] ?? 'warning',
    message: { text: e.message || e.rule },
    locations: [{ physicalLocation: location(relativeUri(baseRel, e.file), e.line ? { start: { line: e.line - 1, character: 0 }, end: { line: e.line - 1, character: 0 } } : undefined) }],
    partialFingerprints: { 'taskwrightLineText/v1': `${e.rule}:${e.fp}` },
    baselineState: 'absent',
  };
}

/**
 * The SARIF 2.1.0 log around `results` (put in as RESULTS_MARK by the streaming writer): one run,
 * every rule in the table, locations relative to `%SRCROOT%`.
 */
export function sarifLog(rules: readonly object[], root: string, version: string, results: readonly object[]): object {
  const base = pathToFileURL(root.endsWith(path.sep) ? root : `${root}${path.sep}`).href;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'taskwright', version, informationUri: TASKWRIGHT_URL, rules } },
      originalUriBaseIds: { '%SRCROOT%': { uri: base } },
      results,
      columnKind: 'utf16CodeUnits',
    }],
  };
}
