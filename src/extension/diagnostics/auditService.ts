import * as path from 'node:path';
import * as vscode from 'vscode';
import { auditTaskFingerprinted } from '../../core/audit/index';
import { loadTask } from '../../core/loader/index';
import { worstSeverity, type Finding } from '../../core/model/finding';
import type { Task } from '../../core/model/task';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { BaselineSource } from './baselineSource';
import { summarize, toDiagnostic, type PlacedFinding } from './convert';
import { registerPrecisionHover } from './hover';
import { rulePagesOf } from './rulePages';

/** What the code actions need about one published file: the findings and the text version they saw. */
interface PublishedFile {
  readonly taskDir: string;
  /** The document version audited, when the file was open; fixes apply only to that version. */
  readonly version: number | undefined;
  readonly findings: readonly PlacedFinding[];
}

/**
 * Static audit in the editor. Each task is audited as a whole (rules are cross-file) with the unsaved
 * text of its open files as an overlay; one task's edit re-audits only that task, after a debounce,
 * aborting an audit of the same task still running. Diagnostics are published for every task (setting
 * `taskwright.audit.scope`; with `openTasks`, only for tasks that have an open file or were audited by
 * "Audit Workspace", cleared when the last file closes) and cleared when the task is deleted; every
 * task's worst finding feeds the explorer's status slot.
 */
export class AuditService implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('taskwright');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, AbortController>();
  private readonly byTask = new Map<string, Set<string>>();
  private readonly files = new Map<string, PublishedFile>();
  /** Tasks audited by "Audit Workspace": their diagnostics stay without an open file. */
  private readonly pinned = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly disposables: vscode.Disposable[] = [];
  private backgroundAll: AbortController | undefined;
  private readonly baselines: BaselineSource;

  constructor(private readonly ctx: Ctx) {
    this.baselines = new BaselineSource(ctx);
    this.disposables.push(
      this.collection,
      registerPrecisionHover(this.collection),
      vscode.workspace.onDidOpenTextDocument((doc) => this.onDocument(doc, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => { if (e.contentChanges.length && ctx.config.get('audit.onType')) this.onDocument(e.document, this.debounceMs()); }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.onDocument(doc, 0)),
      // A closed tab does not close its document at once (VS Code keeps the model a while), so the
      // tabs decide whether a task's diagnostics stay.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of [...e.closed, ...e.opened]) {
          const uri = tabUri(tab);
          const task = uri && this.ctx.tasks.containing(uri.fsPath);
          if (task) this.schedule(task.dir, 0);
        }
      }),
      ctx.tasks.onDidChange((change) => {
        if (change.dirs === 'all') this.auditAllInBackground();
        else for (const dir of change.dirs) this.schedule(dir, 0);
      }),
      ctx.config.onDidChange(['audit.severity', 'audit.onType', 'audit.baseline', 'audit.scope', 'rules.docsUrl'], () => this.auditAllInBackground()),
    );
    if (ctx.tasks.isLoaded) this.auditAllInBackground();
  }

  /** Resolves when no audit is scheduled or running (for tests and the workspace command). */
  async whenIdle(): Promise<void> {
    await this.ctx.tasks.whenIdle();
    while (this.timers.size || this.inFlight.size) {
      if (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
      else await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The findings published on `uri` and the document version they were computed for. */
  published(uri: vscode.Uri): PublishedFile | undefined {
    return this.files.get(uri.toString());
  }

  /**
   * Audits one task now and publishes its diagnostics (pinning them when `pin`). Returns the
   * findings, or undefined when the task is gone or the audit was aborted.
   */
  async auditNow(taskDir: string, options: { pin?: boolean; signal?: AbortSignal } = {}): Promise<Finding[] | undefined> {
    if (options.pin) this.pinned.add(taskDir);
    const timer = this.timers.get(taskDir);
    if (timer) { clearTimeout(timer); this.timers.delete(taskDir); }
    return this.track(this.run(taskDir, options.signal));
  }

  /**
   * Forgets what "Audit Workspace" pinned and drops the diagnostics of tasks with no open file
   * (the explorer's status icons stay: they are cheap and always current).
   */
  clearPinned(): void {
    const dirs = [...this.pinned];
    this.pinned.clear();
    for (const dir of dirs) this.schedule(dir, 0);
  }

  private debounceMs(): number {
    return Math.max(0, this.ctx.config.get('audit.debounceMs'));
  }

  private onDocument(doc: vscode.TextDocument, delay: number): void {
    if (doc.uri.scheme !== 'file') return;
    const task = this.ctx.tasks.containing(doc.uri.fsPath);
    if (task) this.schedule(task.dir, delay);
  }

  private schedule(taskDir: string, delayMs: number): void {
    const old = this.timers.get(taskDir);
    if (old) clearTimeout(old);
    this.timers.set(taskDir, setTimeout(() => {
      this.timers.delete(taskDir);
      void this.track(this.run(taskDir));
    }, delayMs));
  }

  private auditAllInBackground(): void {
    this.backgroundAll?.abort();
    const controller = new AbortController();
    this.backgroundAll = controller;
    const tasks = this.ctx.tasks.all();
    const live = new Set(tasks.map((t) => t.dir));
    for (const dir of [...this.byTask.keys()]) if (!live.has(dir)) this.clear(dir);
    for (const dir of [...this.pinned]) if (!live.has(dir)) this.pinned.delete(dir);
    void this.track((async () => {
      // One task at a time: the audit is fast, and the extension host stays responsive between tasks.
      for (const t of tasks) {
        if (controller.signal.aborted) return;
        await this.run(t.dir, controller.signal);
      }
    })());
  }

  private async run(taskDir: string, outer?: AbortSignal): Promise<Finding[] | undefined> {
    this.running.get(taskDir)?.abort();
    const controller = new AbortController();
    this.running.set(taskDir, controller);
    const abort = (): void => controller.abort();
    outer?.addEventListener('abort', abort);
    try {
      await this.docsIndexed();
      if (!this.ctx.tasks.get(taskDir)) {
        this.clear(taskDir);
        this.ctx.status.set(taskDir, 'audit', undefined);
        return undefined;
      }
      const open = this.openDocuments(taskDir);
      const overlay = new Map<string, string>();
      const versions = new Map<string, number>();
      for (const doc of open) {
        versions.set(doc.uri.toString(), doc.version);
        if (doc.isDirty) overlay.set(doc.uri.fsPath, doc.getText());
      }
      const task = overlay.size ? await loadTask(taskDir, { overlay }) : this.ctx.tasks.get(taskDir) ?? await loadTask(taskDir);
      const all = await auditTaskFingerprinted(task, {
        overlay,
        signal: controller.signal,
        severityOverrides: this.ctx.config.get('audit.severity', vscode.Uri.file(taskDir)),
      });
      // Findings the baseline accepted (same rule, file and line text) are not shown anywhere.
      const baseline = await this.baselines.forTask(taskDir);
      const findings = baseline ? baseline.newFindings(task.dir, all) : all;
      if (controller.signal.aborted) return undefined;
      this.ctx.status.set(taskDir, 'audit', {
        level: worstSeverity(findings) ?? 'ok',
        summary: summarize(findings),
      });
      // Problems shows what the tree's icons say: every task's findings, unless the user asked for open tasks only.
      const everyTask = this.ctx.config.get('audit.scope', vscode.Uri.file(taskDir)) !== 'openTasks';
      const live = this.ctx.config.get('audit.onType') && (this.hasOpenTab(taskDir) || open.some((d) => d.isDirty));
      if (everyTask || live || this.pinned.has(taskDir)) this.publish(task, findings, versions);
      else this.clear(taskDir);
      return findings;
    } catch (e) {
      if (controller.signal.aborted) return undefined;
      this.ctx.log.error(`Audit of ${taskDir} failed: ${errorMessage(e)}`);
      return undefined;
    } finally {
      outer?.removeEventListener('abort', abort);
      if (this.running.get(taskDir) === controller) this.running.delete(taskDir);
    }
  }

  private openDocuments(taskDir: string): vscode.TextDocument[] {
    const prefix = taskDir + path.sep;
    return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && !d.isClosed && d.uri.fsPath.startsWith(prefix)
      && this.ctx.tasks.containing(d.uri.fsPath)?.dir === taskDir);
  }

  private hasOpenTab(taskDir: string): boolean {
    return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => {
      const uri = tabUri(t);
      return !!uri && this.ctx.tasks.containing(uri.fsPath)?.dir === taskDir;
    }));
  }

  private publish(task: Task, findings: readonly Finding[], versions: ReadonlyMap<string, number>): void {
    const byUri = new Map<string, { uri: vscode.Uri; placed: PlacedFinding[] }>();
    for (const f of findings) {
      const placed = toDiagnostic(task, f, (rule) => this.ruleDocsUri(rule));
      const key = placed.uri.toString();
      const entry = byUri.get(key);
      if (entry) entry.placed.push(placed);
      else byUri.set(key, { uri: placed.uri, placed: [placed] });
    }
    const previous = this.byTask.get(task.dir) ?? new Set<string>();
    for (const key of previous) {
      if (byUri.has(key)) continue;
      this.collection.delete(vscode.Uri.parse(key));
      this.files.delete(key);
    }
    for (const [key, { uri, placed }] of byUri) {
      this.collection.set(uri, placed.map((p) => p.diagnostic));
      this.files.set(key, { taskDir: task.dir, version: versions.get(key), findings: placed });
    }
    this.byTask.set(task.dir, new Set(byUri.keys()));
  }

  private clear(taskDir: string): void {
    for (const key of this.byTask.get(taskDir) ?? []) {
      this.collection.delete(vscode.Uri.parse(key));
      this.files.delete(key);
    }
    this.byTask.delete(taskDir);
  }

  /** The target of a rule's code link (diagnostics/rulePages.ts): its https page, or the command that opens it beside. */
  ruleDocsUri(rule: string): vscode.Uri | undefined {
    return rulePagesOf(this.ctx).linkTarget(rule);
  }

  /** Resolves once the list of rule pages is read (before it, ruleDocsUri knows only docsUrl pages). */
  docsIndexed(): Promise<void> {
    return rulePagesOf(this.ctx).whenIndexed();
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  dispose(): void {
    this.backgroundAll?.abort();
    for (const t of this.timers.values()) clearTimeout(t);
    for (const c of this.running.values()) c.abort();
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}

/** The file a tab shows (text editors and diffs), when it is a local file. */
function tabUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  const uri = input instanceof vscode.TabInputText ? input.uri : input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
  return uri?.scheme === 'file' ? uri : undefined;
}
