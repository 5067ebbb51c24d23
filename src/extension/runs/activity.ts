import * as vscode from 'vscode';

/** One piece of work that runs trials (a validation, a rerun, a policy run), as the status bar counts it. */
export interface TrialWork extends vscode.Disposable {
  /** Trials of this work that have finished so far, of `total` (when the work learns its size late). */
  finished(done: number, total?: number): void;
}

/**
 * Trials running now in this window: every command that runs trials begins a piece of work with its
 * number of trials and reports how many finished; the status bar shows the sum of what is left.
 */
export class TrialActivity implements vscode.Disposable {
  private readonly work = new Map<number, { total: number; done: number }>();
  private next = 1;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  begin(total: number): TrialWork {
    const id = this.next++;
    this.work.set(id, { total: Math.max(0, total), done: 0 });
    this.changed.fire();
    return {
      finished: (done, total) => {
        const w = this.work.get(id);
        if (!w || (w.done === done && (total === undefined || total === w.total))) return;
        if (total !== undefined) w.total = Math.max(0, total);
        w.done = Math.min(w.total, Math.max(0, done));
        this.changed.fire();
      },
      dispose: () => {
        if (this.work.delete(id)) this.changed.fire();
      },
    };
  }

  /** Trials begun and not yet finished. */
  running(): number {
    let n = 0;
    for (const w of this.work.values()) n += w.total - w.done;
    return n;
  }

  dispose(): void {
    this.work.clear();
    this.changed.dispose();
  }
}
