import { indexOfId, rowAt, type ColumnReport, type TaskColumns } from '../src/core/bandview/columns';
import { formatExport, tasksInBand } from '../src/core/bandview/exportList';
import type { WebviewToHost } from '../src/core/protocol/bandPanel';

export function exportedText(count: number, file: string): string {
  return `Exported ${count} task${count === 1 ? '' : 's'} to ${file}`;
}

/**
 * What the static report (`taskwright band --html`, no extension host) does with the panel's requests:
 * a reveal shows the task's path, an export downloads the file. Returns the text to show.
 */
export function answerStatically(msg: WebviewToHost, report: ColumnReport | undefined, shown: TaskColumns | undefined): { status?: string; export?: string } | undefined {
  if (msg.type === 'reveal-task') {
    const i = shown ? indexOfId(shown, msg.taskId) : -1;
    const row = shown && i >= 0 ? rowAt(shown, i) : undefined;
    return { status: row ? `${row.id}: ${row.path}` : msg.taskId };
  }
  if (msg.type !== 'export' || !report) return undefined;
  const tasks = tasksInBand(report, msg.model, msg.band, msg.thresholds);
  const text = formatExport(tasks, msg.format, { model: msg.model, band: msg.band, k: report.k, thresholds: msg.thresholds });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: msg.format === 'json' ? 'application/json' : 'text/plain' }));
  a.download = `tasks-${msg.band}.${msg.format === 'json' ? 'json' : 'txt'}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  return { export: exportedText(tasks.length, a.download) };
}
