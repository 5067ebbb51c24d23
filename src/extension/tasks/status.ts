import * as vscode from 'vscode';
import type { Band } from '../../core/band/types';

/** Who reports a status: the static audit, the last sandbox validation, the last model review, the last band measurement. */
export type StatusSource = 'audit' | 'validation' | 'review' | 'band';

/** `running` wins over everything; otherwise the worst level of all sources is shown. */
export type StatusLevel = 'running' | 'error' | 'warning' | 'info' | 'ok';

export interface TaskStatus {
  readonly level: StatusLevel;
  /** One line, shown in the task's tooltip, e.g. "2 errors, 1 warning" or "oracle failed". */
  readonly summary: string;
  /** A few words for the task's row (its description), e.g. "in band 50%". */
  readonly label?: string;
  /** The band itself (band statuses only), for the explorer's filter. */
  readonly band?: Band;
}

/**
 * Sources that say how healthy a task is, and so decide its icon. The band is not health (a task too
 * hard for one model is no defect): it shows as text, and only its `running` state reaches the icon.
 */
const HEALTH: ReadonlySet<StatusSource> = new Set(['audit', 'validation', 'review']);

const RANK: Readonly<Record<StatusLevel, number>> = { running: 5, error: 4, warning: 3, info: 2, ok: 1 };

/**
 * The status slot of every task (keyed by absolute task folder). Other areas feed it (sandbox
 * validation, band runs); the Task Explorer renders the combined status as the task's icon.
 */
export class TaskStatusService implements vscode.Disposable {
  private readonly byTask = new Map<string, Map<StatusSource, TaskStatus>>();
  private readonly changed = new vscode.EventEmitter<readonly string[]>();
  /** Fires with the task folders whose status changed. */
  readonly onDidChange = this.changed.event;

  set(taskDir: string, source: StatusSource, status: TaskStatus | undefined): void {
    let entry = this.byTask.get(taskDir);
    if (!status) {
      if (!entry?.delete(source)) return;
      if (entry.size === 0) this.byTask.delete(taskDir);
    } else {
      if (!entry) this.byTask.set(taskDir, (entry = new Map()));
      const old = entry.get(source);
      if (old && old.level === status.level && old.summary === status.summary && old.label === status.label && old.band === status.band) return;
      entry.set(source, status);
    }
    this.changed.fire([taskDir]);
  }

  /** Drops every status of `source` (e.g. when the audit is switched off). */
  clear(source: StatusSource): void {
    const dirs: string[] = [];
    for (const [dir, entry] of this.byTask) {
      if (entry.delete(source)) dirs.push(dir);
      if (entry.size === 0) this.byTask.delete(dir);
    }
    if (dirs.length) this.changed.fire(dirs);
  }

  get(taskDir: string): ReadonlyMap<StatusSource, TaskStatus> {
    return this.byTask.get(taskDir) ?? new Map();
  }

  /** The status the task's icon shows: running if any source runs, else the worst health level. */
  combined(taskDir: string): TaskStatus | undefined {
    let best: TaskStatus | undefined;
    for (const [source, s] of this.get(taskDir)) {
      if (!HEALTH.has(source) && s.level !== 'running') continue;
      if (!best || RANK[s.level] > RANK[best.level]) best = s;
    }
    return best;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
