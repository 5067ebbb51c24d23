import path from 'node:path';
import type { Severity } from '../../core/model/finding';
import type { Sink } from './jsonStream';
import type { ReportTask, ReportWriter, RunSummary, WriterOptions } from './model';

function where(taskPath: string, file: string | null | undefined, line: number | null | undefined, col?: number): string {
  if (!file) return taskPath;
  return `${path.posix.join(taskPath, file)}${line ? `:${line}${col ? `:${col}` : ''}` : ''}`;
}

/**
 * Grouped by task; each finding as `path/file:line:col  severity  rule  message` (clickable from the
 * cwd). A dataset convention is listed once at the end with its count instead of under every task
 * (unless --expand); the tasks it hides say how many.
 */
export class TextWriter implements ReportWriter {
  private readonly counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  private readonly firstPath = new Map<number, string>();

  constructor(private readonly sink: Sink, private readonly run: RunSummary, private readonly options: WriterOptions) {}

  task(t: ReportTask): void {
    const conv = this.run.conventions;
    const shown: string[] = [];
    let hidden = 0;
    for (const f of t.findings) {
      this.counts[f.severity]++;
      const c = conv.indexOf(t.dataset, f);
      if (c !== undefined) {
        if (!this.firstPath.has(c)) this.firstPath.set(c, t.path);
        if (!this.options.expand) { hidden++; continue; }
      }
      const tag = `${c !== undefined ? '  [convention]' : ''}${f.baseline === 'unchanged' ? '  [baseline]' : ''}`;
      shown.push(`  ${where(t.path, f.file, f.range ? f.range.start.line + 1 : null, f.range ? f.range.start.character + 1 : undefined)}  ${f.severity}  ${f.rule}  ${f.message}${tag}`);
      for (const r of f.related ?? []) shown.push(`    ↳ ${where(t.path, r.file, r.range ? r.range.start.line + 1 : null)}  ${r.message}`);
    }
    const note = hidden ? `  +${hidden} dataset convention${hidden === 1 ? '' : 's'} (below)` : '';
    this.sink.write(`${t.path} (${t.format})${t.findings.length === 0 ? '  ok' : note}\n`);
    for (const l of shown) this.sink.write(`${l}\n`);
  }

  end(): void {
    const conventions = this.run.conventions.conventions();
    if (this.run.tasks === 0) {
      this.sink.write('No tasks found (a task is a folder holding task.yaml or task.toml).\n');
      this.sink.end();
      return;
    }
    if (conventions.length) {
      this.sink.write(`\nDataset conventions (one finding in more than half of a dataset's tasks, shown once${this.options.expand ? '' : '; --expand lists it under each task'}):\n`);
      let dataset: string | undefined;
      conventions.forEach((c, i) => {
        if (c.dataset !== dataset) { dataset = c.dataset; this.sink.write(`  ${c.dataset}\n`); }
        const first = this.firstPath.get(i);
        const at = first ? where(first, c.file || null, c.line) : (c.file || '(task)');
        this.sink.write(`    ${c.count} of ${c.tasks} tasks  ${c.file || '(task)'}${c.line ? `:${c.line}` : ''}  ${c.severity}  ${c.rule}  ${c.message}  (e.g. ${at})\n`);
      });
    }
    if (this.run.absent?.length) this.sink.write(`\n${this.run.absent.length} baseline finding(s) no longer reported (fixed or moved to another line's text)\n`);
    const n = this.run.tasks;
    const base = this.run.baselined ? `; ${this.run.baselined} in the baseline not shown` : '';
    this.sink.write(`\n${n} task${n === 1 ? '' : 's'}: ${this.counts.error} error(s), ${this.counts.warning} warning(s), ${this.counts.info} info${base}\n`);
    this.sink.end();
  }
}
