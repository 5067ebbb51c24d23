import type { Range } from './positions';

/** The failure classes of a task, shared by static audit, loader problems and dynamic validation. */
export type FindingClass = 'brittleness' | 'misalignment' | 'invalidity' | 'infra';
export type Severity = 'error' | 'warning' | 'info';

export const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { error: 3, warning: 2, info: 1 };

/** A text replacement in one task file (`file` relative to the task folder). */
export interface TextEdit {
  readonly file: string;
  readonly range: Range;
  readonly newText: string;
}

export interface Fix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
  /** Safe to apply without review (shown as the preferred quick fix). */
  readonly preferred?: boolean;
}

export interface RelatedLocation {
  readonly file: string;
  readonly range?: Range;
  readonly message: string;
}

/**
 * One defect of one task. `file` is relative to the task folder (POSIX separators) and absent for
 * task-level findings; `range` is absent when the finding concerns a whole file.
 */
export interface Finding {
  readonly rule: string;
  readonly class: FindingClass;
  readonly severity: Severity;
  readonly file?: string;
  readonly range?: Range;
  readonly message: string;
  readonly related?: readonly RelatedLocation[];
  readonly fix?: Fix;
  /** Who found it when not the static audit: `review` (a model's cited claim), `validate`. */
  readonly source?: 'audit' | 'validate' | 'review';
}

export function worstSeverity(findings: readonly Finding[]): Severity | undefined {
  let worst: Severity | undefined;
  for (const f of findings) if (!worst || SEVERITY_ORDER[f.severity] > SEVERITY_ORDER[worst]) worst = f.severity;
  return worst;
}
