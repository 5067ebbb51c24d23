import * as vscode from 'vscode';
import { Config } from './config';
import { AuditService } from './diagnostics/auditService';
import { TaskExplorer } from './explorer/explorer';
import { createLog } from './log';
import { ResultsStoreEvents } from './results/storeEvents';
import { TrialActivity } from './runs/activity';
import { RunsView } from './runs/runsView';
import { TaskIndex } from './tasks/taskIndex';
import { TaskStatusService } from './tasks/status';

/**
 * The one object every part of the extension receives: the services it shares and the cleanup of
 * everything created during the extension's lifetime. Whatever is created is registered here, where
 * it is created (`ctx.own(x)` returns `x`).
 */
export class Ctx implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly config = new Config();
  /** Every task of the workspace, loaded by the core. */
  readonly tasks: TaskIndex;
  /** The status slot of each task (audit, validation, band) that the explorer shows as its icon. */
  readonly status: TaskStatusService;
  /** The Task Explorer view (filter, reveal). */
  readonly explorer: TaskExplorer;
  /** The static audit in the editor: diagnostics, and each task's worst finding in the explorer. */
  readonly audit: AuditService;
  /** Trials running now in this window (validations, reruns, policy runs), for the status bar. */
  readonly trials: TrialActivity;
  /** Runs and files appearing or changing in the workspace's results stores. */
  readonly store: ResultsStoreEvents;
  /** The Runs view over the results store. */
  readonly runs: RunsView;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly services = new Map<new (ctx: Ctx) => vscode.Disposable, vscode.Disposable>();

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = this.own(createLog());
    this.tasks = this.own(new TaskIndex(this.config, this.log));
    this.status = this.own(new TaskStatusService());
    this.explorer = this.own(new TaskExplorer(this));
    this.audit = this.own(new AuditService(this));
    this.trials = this.own(new TrialActivity());
    this.store = this.own(new ResultsStoreEvents(this.log));
    this.runs = this.own(new RunsView(this));
    extension.subscriptions.push(this);
  }

  /** Registers `d` for disposal when the extension deactivates; returns it. */
  own<T extends vscode.Disposable>(d: T): T {
    this.disposables.push(d);
    return d;
  }

  /**
   * The one instance of a feature's service (sandbox, band…) for this context: made on first use, so
   * activation does not pay for features never used, and disposed with the context.
   */
  service<T extends vscode.Disposable>(Service: new (ctx: Ctx) => T): T {
    let s = this.services.get(Service) as T | undefined;
    if (!s) {
      s = this.own(new Service(this));
      this.services.set(Service, s);
    }
    return s;
  }

  /** Whether the feature's service was made already (without making it). */
  hasService(Service: new (ctx: Ctx) => vscode.Disposable): boolean {
    return this.services.has(Service);
  }

  /** Absolute URI of a file shipped with the extension (media/, docs/rules/, dist/). */
  asset(...segments: string[]): vscode.Uri {
    return vscode.Uri.joinPath(this.extension.extensionUri, ...segments);
  }

  /** Sets a `when`-clause context key (all keys are `taskwright.*`). */
  setContext(key: string, value: unknown): Thenable<unknown> {
    return vscode.commands.executeCommand('setContext', `taskwright.${key}`, value);
  }

  dispose(): void {
    // Reverse order: later registrations may depend on earlier ones.
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // Keep disposing the rest: one failing cleanup must not leak the others.
      }
    }
  }
}
