import type { Finding } from '../model/finding';

/** The CLI's JSON shape of a finding: positions 1-based, null when the finding is file- or task-level. */
export interface FindingJson {
  readonly rule: string;
  readonly class: Finding['class'];
  readonly severity: Finding['severity'];
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly endLine: number | null;
  readonly endColumn: number | null;
  readonly message: string;
}

export function findingToJson(f: Finding): FindingJson {
  return {
    rule: f.rule,
    class: f.class,
    severity: f.severity,
    file: f.file ?? null,
    line: f.range ? f.range.start.line + 1 : null,
    column: f.range ? f.range.start.character + 1 : null,
    endLine: f.range ? f.range.end.line + 1 : null,
    endColumn: f.range ? f.range.end.character + 1 : null,
    message: f.message,
  };
}
