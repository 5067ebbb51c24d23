import type { Finding, Severity } from '../model/finding';
import type { Range } from '../model/positions';

/** The loader's rule ids (class `invalidity`); the audit registry documents each one. */
export const LOADER_RULES = {
  'config-parse-error': 'error',
  'config-invalid-value': 'error',
  'config-unknown-key': 'info',
  'missing-instruction': 'error',
  'missing-environment': 'error',
  'missing-test-entry': 'error',
  'missing-tests': 'warning',
  // Neither format requires a reference solution, but without one nothing shows the task can be
  // solved and no oracle run can check the verifier: readers of real tasks judged every sampled case
  // one to act on (42/42), so it warns; a dataset that ships none shows it once as a convention.
  'missing-solution': 'warning',
  // Harbor accepts any string (and the old `version` key): nothing it refuses, so a note only.
  'unsupported-schema-version': 'info',
  'nested-task-folder': 'warning',
} as const satisfies Record<string, Severity>;

export type LoaderRule = keyof typeof LOADER_RULES;

export const LOADER_RULE_IDS: readonly LoaderRule[] = Object.keys(LOADER_RULES) as LoaderRule[];

/** Collects the problems of one task; every message starts with the task id. */
export class ProblemSink {
  readonly items: Finding[] = [];

  constructor(private readonly taskId: string) {}

  add(rule: LoaderRule, file: string | undefined, range: Range | undefined, message: string, severity: Severity = LOADER_RULES[rule]): void {
    this.items.push({
      rule,
      class: 'invalidity',
      severity,
      ...(file !== undefined ? { file } : {}),
      ...(range ? { range } : {}),
      message: `${this.taskId}: ${message}`,
    });
  }
}

/**
 * Why the task's config does not parse (the first `config-parse-error`, without the task id the
 * loader puts first, with its line), or undefined when it parses. A task whose config does not parse
 * holds defaults the loader filled in, which no view should show as the task's own.
 */
export function configParseProblem(taskId: string, problems: readonly Finding[]): string | undefined {
  const p = problems.find((f) => f.rule === 'config-parse-error');
  if (!p) return undefined;
  const message = p.message.startsWith(`${taskId}: `) ? p.message.slice(taskId.length + 2) : p.message;
  return p.range ? `${message} (line ${p.range.start.line + 1})` : message;
}
