import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Band, BandReport, BandThresholds, TaskBandRow } from '../../core/band/types';
import { toColumns } from '../../core/bandview/columns';
import { formatExport, tasksInBand } from '../../core/bandview/exportList';
import { modelKeys } from '../../core/bandview/view';
import type { ExportFormat } from '../../core/protocol/bandPanel';
import type { Ctx } from '../context';

/** The row of a task in the host's own report: messages name a task, never a path to open. */
export function findRow(report: BandReport, model: string, taskId: string): TaskBandRow | undefined {
  const i = modelKeys(report.models).indexOf(model);
  return i < 0 ? undefined : report.models[i]!.tasks.find((t) => t.id === taskId);
}

/**
 * The task folder of a report row: the path as recorded (absolute, or relative to a workspace folder
 * or to the folder holding `.taskwright/`), else the workspace task with that id.
 */
export function resolveTaskDir(ctx: Ctx, row: TaskBandRow, sources: readonly string[]): string | undefined {
  const candidates: string[] = [];
  if (path.isAbsolute(row.path)) candidates.push(row.path);
  else {
    for (const f of vscode.workspace.workspaceFolders ?? []) candidates.push(path.join(f.uri.fsPath, row.path));
    for (const s of sources) {
      const i = s.lastIndexOf(`${path.sep}.taskwright${path.sep}`);
      if (i >= 0) candidates.push(path.join(s.slice(0, i), row.path));
    }
  }
  for (const c of candidates) {
    const task = ctx.tasks.get(path.resolve(c));
    if (task) return task.dir;
  }
  const byId = ctx.tasks.all().filter((t) => t.id === row.id);
  if (byId.length === 1) return byId[0]!.dir;
  return candidates.find((c) => fs.existsSync(c));
}

/** Reveals the task in the Task Explorer and opens its instruction beside the panel. */
export async function revealTaskOf(ctx: Ctx, row: TaskBandRow, sources: readonly string[]): Promise<boolean> {
  const dir = resolveTaskDir(ctx, row, sources);
  if (!dir) {
    void vscode.window.showWarningMessage(`Taskwright: task ${row.id} (${row.path}) is not in this workspace.`);
    return false;
  }
  const task = ctx.tasks.get(dir);
  await ctx.explorer.reveal(dir, { focus: false });
  const instruction = task ? path.join(task.dir, task.instructionFile) : undefined;
  const file = instruction && fs.existsSync(instruction) ? instruction
    : ['instruction.md', 'task.yaml', 'task.toml'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  if (file) await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.Beside, preview: true });
  return true;
}

/** Asks where to save, then writes the tasks of one band (JSON or a list of paths). Undefined when cancelled. */
export async function exportBand(report: BandReport, model: string, band: Band | 'all', format: ExportFormat, thresholds: BandThresholds, defaultDir?: vscode.Uri): Promise<{ file: string; count: number } | undefined> {
  const tasks = tasksInBand(toColumns(report), model, band, thresholds);
  const ext = format === 'json' ? 'json' : 'txt';
  const name = `${model.replace(/[^\w.-]+/g, '_')}-${band}.${ext}`;
  const target = await vscode.window.showSaveDialog({
    ...(defaultDir ? { defaultUri: vscode.Uri.joinPath(defaultDir, name) } : {}),
    filters: format === 'json' ? { JSON: ['json'] } : { 'Text (one task path per line)': ['txt'] },
    title: `Export ${tasks.length} ${band === 'all' ? '' : `${band} `}tasks of ${model}`,
  });
  if (!target) return undefined;
  const text = formatExport(tasks, format, { model, band, k: report.k, thresholds });
  await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
  return { file: target.fsPath, count: tasks.length };
}
