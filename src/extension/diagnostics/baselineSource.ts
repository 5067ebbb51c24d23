import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BaselineIndex, readBaseline } from '../../core/audit/baseline';
import type { Ctx } from '../context';
import { errorMessage } from '../log';

/**
 * The `taskwright.audit.baseline` file for a task's folder, read once and again when its
 * modification time changes. A missing or broken file is logged once and means no baseline (every
 * finding shows): a baseline only ever hides findings, so failing open keeps the editor honest.
 */
export class BaselineSource {
  private readonly loaded = new Map<string, { mtimeMs: number; index: BaselineIndex | undefined }>();
  private readonly warned = new Set<string>();

  constructor(private readonly ctx: Ctx) {}

  /** The baseline that applies to the task in `taskDir`, if the setting names one. */
  async forTask(taskDir: string): Promise<BaselineIndex | undefined> {
    const scope = vscode.Uri.file(taskDir);
    const setting = this.ctx.config.get('audit.baseline', scope).trim();
    if (!setting) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(scope)?.uri.fsPath ?? taskDir;
    const file = path.resolve(folder, setting);
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(file)).mtimeMs;
    } catch (e) {
      this.warnOnce(file, `Baseline ${file} (taskwright.audit.baseline) cannot be read: ${errorMessage(e)}; showing every finding.`);
      return undefined;
    }
    const hit = this.loaded.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.index;
    let index: BaselineIndex | undefined;
    try {
      index = new BaselineIndex(await readBaseline(file), path.dirname(file));
      this.warned.delete(file);
    } catch (e) {
      this.warnOnce(file, `${errorMessage(e)}; showing every finding.`);
    }
    this.loaded.set(file, { mtimeMs, index });
    return index;
  }

  private warnOnce(file: string, message: string): void {
    if (this.warned.has(file)) return;
    this.warned.add(file);
    this.ctx.log.warn(message);
  }
}
