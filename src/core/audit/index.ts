import { loadAuditConfig } from '../config/auditConfig';
import type { Finding, Severity } from '../model/finding';
import type { Task } from '../model/task';
import { ensureParsers } from '../parse/treeSitter';
import { AuditContext } from './context';
import { fingerprint, type FingerprintedFinding } from './fingerprint';
import { auditViews } from './steps';
import { STATIC_RULES, ruleMeta } from './registry';
import { docsPath, type RuleMeta } from './rule';
import { isSuppressed, suppressions } from './suppress';

export type { RuleMeta, RuleSource } from './rule';
export type { FingerprintedFinding } from './fingerprint';
export { RULES, STATIC_RULES } from './registry';

export interface AuditOptions {
  /** Unsaved editor buffers: absolute path (or task-relative path) → text. */
  readonly overlay?: ReadonlyMap<string, string>;
  /** Settings from the caller (e.g. VS Code); taskwright.json / .taskwright.yaml files near the task win over these. */
  readonly severityOverrides?: Readonly<Record<string, Severity | 'off'>>;
  readonly signal?: AbortSignal;
  /** Skip reading taskwright.json / .taskwright.yaml (the caller resolved overrides itself). */
  readonly ignoreConfigFiles?: boolean;
}

export function ruleDocsPath(id: string): string {
  return docsPath(id);
}

export { ruleMeta };

function byPosition(a: Finding, b: Finding): number {
  return (a.file ?? '').localeCompare(b.file ?? '')
    || (a.range?.start.line ?? -1) - (b.range?.start.line ?? -1)
    || (a.range?.start.character ?? -1) - (b.range?.start.character ?? -1)
    || a.rule.localeCompare(b.rule);
}

/**
 * Audits one loaded task: its loader problems plus every static rule, with severities from the
 * rule table, the caller's overrides and the nearest config files, minus inline suppressions.
 * Never throws on bad input: a rule that crashes is reported as an `audit-internal-error` info.
 */
export async function auditTask(task: Task, options: AuditOptions = {}): Promise<Finding[]> {
  return (await audit(task, options)).findings;
}

/** As auditTask, with each finding's line fingerprint (for baselines and dataset conventions). */
export async function auditTaskFingerprinted(task: Task, options: AuditOptions = {}): Promise<FingerprintedFinding[]> {
  const { findings, textOf } = await audit(task, options);
  return fingerprint(findings, textOf);
}

async function audit(task: Task, options: AuditOptions): Promise<{ findings: Finding[]; textOf: (file: string) => string }> {
  options.signal?.throwIfAborted();
  await ensureParsers();
  const views = auditViews(task);
  const [ctxs, config] = await Promise.all([
    Promise.all(views.map((v) => AuditContext.create(v, options.overlay, options.signal))),
    options.ignoreConfigFiles ? Promise.resolve({ rules: {} }) : loadAuditConfig(task.dir, options.overlay, task.files).catch(() => ({ rules: {} })),
  ]);
  const overrides: Record<string, Severity | 'off'> = { ...(options.severityOverrides ?? {}), ...config.rules };
  const raw: Finding[] = [...task.problems];
  // Steps share the environment: a finding on a shared file is reported once.
  const seen = new Set<string>();
  for (const ctx of ctxs) {
    for (const rule of STATIC_RULES) {
      if (overrides[rule.id] === 'off') continue;
      options.signal?.throwIfAborted();
      try {
        for (const r of rule.check(ctx)) {
          if (ctxs.length > 1) {
            const key = `${rule.id}|${r.file ?? ''}|${r.range?.start.line ?? ''}|${r.range?.start.character ?? ''}|${r.message}`;
            if (seen.has(key)) continue;
            seen.add(key);
          }
          raw.push({
            rule: rule.id, class: rule.class, severity: r.severity ?? rule.severity, message: r.message,
            ...(r.file !== undefined ? { file: r.file } : {}), ...(r.range ? { range: r.range } : {}),
            ...(r.related && r.related.length ? { related: r.related } : {}), ...(r.fix ? { fix: r.fix } : {}),
          });
        }
      } catch (e) {
        raw.push({ rule: 'audit-internal-error', class: 'infra', severity: 'info', message: `Rule ${rule.id} failed on task ${task.id}${ctx.task.step ? ` (step ${ctx.task.step.name})` : ''}: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
  }
  const textOf = (file: string): string => ctxs.map((c) => c.text(file)).find((t) => t !== undefined) ?? '';
  const suppressionCache = new Map<string, Map<number, Set<string>>>();
  const out: Finding[] = [];
  for (const f of raw) {
    const setting = overrides[f.rule];
    if (setting === 'off') continue;
    if (f.file && f.range) {
      let s = suppressionCache.get(f.file);
      if (!s) { s = suppressions(textOf(f.file)); suppressionCache.set(f.file, s); }
      if (isSuppressed(s, f.range.start.line, f.rule)) continue;
    }
    out.push(setting && setting !== f.severity ? { ...f, severity: setting } : f);
  }
  return { findings: out.sort(byPosition), textOf };
}

/** Rule metadata for ids that are not in the table (e.g. a newer loader's problem ids). */
export function ruleMetaOrFallback(id: string, f?: Finding): RuleMeta {
  return ruleMeta(id) ?? { id, class: f?.class ?? 'invalidity', severity: f?.severity ?? 'warning', title: id, docs: docsPath(id), fixable: false, source: 'loader' };
}

