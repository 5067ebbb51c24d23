import { sarifAbsentResult, sarifLog, sarifResult, sarifRules } from '../../core/audit/sarif';
import { findingToJson, type FindingJson } from '../../core/report/findingJson';
import { JsonArrayStream, type Sink } from './jsonStream';
import type { Convention, ReportFinding, ReportTask, ReportWriter, RunSummary, WriterOptions } from './model';

export interface AuditFindingJson extends FindingJson {
  /** First 16 hex digits of the SHA-256 of the line's trimmed text (see docs: baselines). */
  readonly fp: string;
  /** Index into `conventions` when this finding is one of its dataset's conventions, else null. */
  readonly convention: number | null;
  /** Only with --baseline: `new`, or `unchanged` (shown with --show-baselined). */
  readonly baseline?: 'new' | 'unchanged';
}

export interface AuditTaskJson {
  readonly path: string;
  readonly id: string;
  readonly format: string;
  readonly dataset: string;
  readonly findings: readonly AuditFindingJson[];
}

/** `taskwright audit --format json`. */
export interface AuditJson {
  readonly version: 1;
  readonly tool: 'taskwright';
  readonly tasks: readonly AuditTaskJson[];
  readonly conventions: readonly Convention[];
  readonly baseline?: { readonly absent: readonly object[] };
}

export function taskJson(t: ReportTask, run: RunSummary): AuditTaskJson {
  return {
    path: t.path, id: t.id, format: t.format, dataset: t.dataset,
    findings: t.findings.map((f: ReportFinding) => ({
      ...findingToJson(f), fp: f.fp, convention: run.conventions.indexOf(t.dataset, f) ?? null,
      ...(f.baseline === 'new' || f.baseline === 'unchanged' ? { baseline: f.baseline } : {}),
    })),
  };
}

export function jsonHead(run: RunSummary, tasks: unknown): AuditJson {
  return {
    version: 1, tool: 'taskwright', tasks: tasks as AuditTaskJson[], conventions: run.conventions.conventions(),
    ...(run.absent ? { baseline: { absent: run.absent } } : {}),
  };
}

export class JsonWriter implements ReportWriter {
  private readonly stream: JsonArrayStream;

  constructor(sink: Sink, private readonly run: RunSummary, private readonly sinkEnd: () => void) {
    this.stream = new JsonArrayStream(sink, jsonHead(run, JsonArrayStream.STREAMED));
  }

  task(t: ReportTask): void {
    this.stream.item(taskJson(t, this.run));
  }

  end(): void {
    this.stream.end();
    this.sinkEnd();
  }
}

export class SarifWriter implements ReportWriter {
  private readonly stream: JsonArrayStream;
  private readonly index: Map<string, number>;

  constructor(sink: Sink, private readonly run: RunSummary, options: WriterOptions, private readonly sinkEnd: () => void) {
    const { ids, rules } = sarifRules(run.usedRules, options.docsUrl);
    this.index = new Map(ids.map((id, i) => [id, i]));
    this.stream = new JsonArrayStream(sink, sarifLog(rules, options.sarifRoot, options.version, JsonArrayStream.STREAMED as unknown as object[]));
  }

  task(t: ReportTask): void {
    for (const f of t.findings) {
      const convention = this.run.conventions.indexOf(t.dataset, f);
      this.stream.item(sarifResult(t, convention === undefined ? f : { ...f, convention }, this.index.get(f.rule) ?? 0));
    }
  }

  end(): void {
    const rel = this.run.baselineRel;
    if (rel !== undefined) {
      for (const e of this.run.absent ?? []) {
        try {
          this.stream.item(sarifAbsentResult(e, rel, this.index.get(e.rule) ?? 0));
        } catch {
          // An entry for a file outside the source root cannot be located in SARIF: left out.
        }
      }
    }
    this.stream.end();
    this.sinkEnd();
  }
}
