import type { Fix, FindingClass, RelatedLocation, Severity } from '../model/finding';
import type { Range } from '../model/positions';
import type { AuditContext } from './context';

/** Where a rule's findings come from: the static audit, the loaders, or dynamic validation runs. */
export type RuleSource = 'static' | 'loader' | 'dynamic';

export interface RuleMeta {
  readonly id: string;
  readonly class: FindingClass;
  readonly severity: Severity;
  readonly title: string;
  /** Repository-relative page: `docs/rules/<id>.md`. */
  readonly docs: string;
  readonly fixable: boolean;
  readonly source: RuleSource;
}

/** What a check reports; the engine adds the rule's class and (unless given) default severity. */
export interface Report {
  readonly file?: string;
  readonly range?: Range;
  readonly message: string;
  /** Only when a rule has graded findings (e.g. `error` when the only test checks existence). */
  readonly severity?: Severity;
  readonly related?: readonly RelatedLocation[];
  readonly fix?: Fix;
}

export interface RuleSpec {
  readonly id: string;
  readonly class: FindingClass;
  readonly severity: Severity;
  readonly title: string;
  readonly fixable?: boolean;
}

export interface StaticRule extends RuleSpec {
  readonly check: (ctx: AuditContext) => Iterable<Report>;
}

export function docsPath(id: string): string {
  return `docs/rules/${id}.md`;
}

export function metaOf(spec: RuleSpec, source: RuleSource): RuleMeta {
  return { id: spec.id, class: spec.class, severity: spec.severity, title: spec.title, docs: docsPath(spec.id), fixable: spec.fixable ?? false, source };
}
