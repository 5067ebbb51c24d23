import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Finding } from '../../core/model/finding';
import type { Task } from '../../core/model/task';
import { defaultResultsDir } from '../../core/results/store';
import type { TrialRecord } from '../../core/results/trial';
import { latestValidations, type StoredValidation } from '../../core/results/validations';
import type { Ctx } from '../context';
import type { TaskIndexChange } from '../tasks/taskIndex';
import { CHECK_LABEL, CHECKS, checkDurationMs, findingsOf, STATE_OF, taskFindings, type TestState } from './checks';

/** What the controller last reported for an item: the Testing API has no getter for it (tests read this). */
export interface ItemState {
  readonly state: TestState | 'running';
  readonly message?: string;
  readonly durationMs?: number;
  /** Where the first message points (workspace-relative file, 0-based line). */
  readonly location?: { readonly file: string; readonly line: number };
  /** Grows with every report: tells a newer result from an older one of the same state. */
  readonly seq: number;
}

export const CONTROLLER_ID = 'taskwright';
const taskItemId = (dir: string): string => `task:${dir}`;
export const checkItemId = (dir: string, check: string): string => `${dir}#${check}`;

/**
 * Tasks as tests in the Testing view: dataset → task → checks (build, nop, oracle, agreement, reward
 * isolation, mutants and the behaviour checks, policy attempts). Dataset and task items follow the
 * task index; a task's checks are made when the view first expands it (or a run needs them).
 * Results are written by the run profiles (profiles.ts) and, after a reload, re-applied from the
 * results store: the store, not the editor's memory of past runs, is what a verdict is.
 */
export class TaskTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController(CONTROLLER_ID, 'Taskwright tasks');
  private readonly states = new Map<string, ItemState>();
  private seq = 0;
  /** When each task's shown result started (a restored one older than it does not replace it). */
  private readonly shownAt = new Map<string, string>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.controller.resolveHandler = (item) => {
      if (item) this.ensureChecks(item);
    };
    this.controller.refreshHandler = async () => {
      await ctx.tasks.rediscover();
    };
    this.subs.push(ctx.tasks.onDidChange((c) => this.sync(c)));
    if (ctx.tasks.isLoaded) this.sync({ dirs: 'all' });
  }

  private datasetOf(task: Task): { id: string; label: string; uri: vscode.Uri } {
    const parent = path.dirname(task.dir);
    const rel = vscode.workspace.asRelativePath(parent, false);
    return { id: `dataset:${parent}`, label: rel === parent ? path.basename(parent) : rel, uri: vscode.Uri.file(parent) };
  }

  /** Adds, replaces or removes items as the task index changed. */
  sync(change: TaskIndexChange): void {
    const dirs = change.dirs === 'all' ? undefined : new Set(change.dirs);
    const live = new Set(this.ctx.tasks.all().map((t) => t.dir));
    this.controller.items.forEach((ds) => {
      ds.children.forEach((item) => {
        const dir = item.id.slice('task:'.length);
        if (!live.has(dir) && (!dirs || dirs.has(dir))) ds.children.delete(item.id);
      });
      if (ds.children.size === 0) this.controller.items.delete(ds.id);
    });
    for (const task of this.ctx.tasks.all()) {
      if (dirs && !dirs.has(task.dir) && this.taskItem(task.dir)) continue;
      const ds = this.datasetOf(task);
      let dsItem = this.controller.items.get(ds.id);
      if (!dsItem) {
        dsItem = this.controller.createTestItem(ds.id, ds.label, ds.uri);
        this.controller.items.add(dsItem);
      }
      const id = taskItemId(task.dir);
      const had = dsItem.children.get(id);
      const uri = vscode.Uri.file(path.join(task.dir, task.configFile));
      if (had && had.uri?.fsPath === uri.fsPath) {
        had.label = task.id;
        continue;
      }
      const item = this.controller.createTestItem(id, task.id, uri);
      item.canResolveChildren = true;
      item.description = task.metadata.difficulty;
      dsItem.children.add(item);
    }
  }

  taskItem(dir: string): vscode.TestItem | undefined {
    const ds = this.task(dir) ? this.controller.items.get(this.datasetOf(this.task(dir)!).id) : undefined;
    return ds?.children.get(taskItemId(dir));
  }

  task(dir: string): Task | undefined {
    return this.ctx.tasks.get(dir);
  }

  /** The task an item belongs to (a dataset item has none). */
  taskOf(item: vscode.TestItem): Task | undefined {
    if (item.id.startsWith('task:')) return this.task(item.id.slice('task:'.length));
    if (item.id.startsWith('dataset:')) return undefined;
    return this.task(item.id.slice(0, item.id.indexOf('#')));
  }

  /** The check items of a task item, made on first need. */
  ensureChecks(item: vscode.TestItem): void {
    const task = this.taskOf(item);
    if (!task || !item.id.startsWith('task:') || item.children.size > 0) return;
    item.canResolveChildren = false;
    const uri = item.uri;
    // In the order validate runs them (the view sorts by label unless told).
    for (const [i, check] of [...CHECKS, 'policy' as const].entries()) {
      const c = this.controller.createTestItem(checkItemId(task.dir, check), check === 'policy' ? 'policy attempts' : CHECK_LABEL[check], uri);
      c.sortText = String(i).padStart(2, '0');
      item.children.add(c);
    }
  }

  check(dir: string, check: string): vscode.TestItem | undefined {
    const t = this.taskItem(dir);
    if (!t) return undefined;
    this.ensureChecks(t);
    return t.children.get(checkItemId(dir, check));
  }

  /** Records and reports one item's state in `run`. */
  report(run: vscode.TestRun, item: vscode.TestItem, state: TestState | 'running', messages: readonly vscode.TestMessage[] = [], durationMs?: number): void {
    const first = messages[0];
    const loc = first?.location;
    this.states.set(item.id, {
      state, seq: ++this.seq, ...(first ? { message: typeof first.message === 'string' ? first.message : first.message.value } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(loc ? { location: { file: vscode.workspace.asRelativePath(loc.uri, false), line: loc.range.start.line } } : {}),
    });
    const msgs = messages.length ? [...messages] : [new vscode.TestMessage(state)];
    switch (state) {
      case 'running': run.started(item); break;
      case 'passed': run.passed(item, durationMs); break;
      case 'failed': run.failed(item, msgs, durationMs); break;
      case 'errored': run.errored(item, msgs, durationMs); break;
      case 'skipped': run.skipped(item); break;
    }
  }

  /** A finding as a message at its file and range (the task's config when it names no file). */
  message(task: Task, f: Pick<Finding, 'message' | 'file' | 'range'>): vscode.TestMessage {
    const m = new vscode.TestMessage(f.message);
    const uri = vscode.Uri.file(path.join(task.dir, f.file ?? task.configFile));
    const r = f.range;
    m.location = new vscode.Location(uri, r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : new vscode.Range(0, 0, 0, 0));
    return m;
  }

  /** Reports a validation's verdict on the task item and each check (trials give the durations). */
  applyValidation(run: vscode.TestRun, task: Task, v: StoredValidation, trials: readonly TrialRecord[], startedAt: string): void {
    const item = this.taskItem(task.dir);
    if (!item) return;
    this.ensureChecks(item);
    this.shownAt.set(task.dir, startedAt);
    for (const name of CHECKS) {
      const ci = item.children.get(checkItemId(task.dir, name));
      if (!ci) continue;
      const c = v.checks.find((x) => x.name === name);
      if (!c) {
        this.report(run, ci, 'skipped');
        continue;
      }
      const state = STATE_OF[c.status];
      const fs = findingsOf(name, v.findings).map((f) => this.message(task, f));
      const messages = fs.length ? fs : c.detail ? [this.message(task, { message: c.detail })] : [];
      this.report(run, ci, state, state === 'passed' ? [] : messages, checkDurationMs(name, trials));
    }
    const rest = taskFindings(v.findings).map((f) => this.message(task, f));
    const state: TestState = v.verdict === 'valid' ? 'passed' : v.verdict === 'infra-error' ? 'errored' : 'failed';
    const total = trials.reduce((n, t) => n + (t.durations.build ?? 0) + (t.durations.agent ?? 0) + (t.durations.verifier ?? 0), 0);
    this.report(run, item, state, state === 'passed' ? [] : [this.message(task, { message: `${task.id} is ${v.verdict}` }), ...rest], trials.length ? Math.round(total * 1000) : undefined);
  }

  /**
   * Shows each task's latest validation in the workspace's results stores as its items' state, unless
   * a newer result is shown. The Testing API keeps no state of its own across reloads unless a run is
   * persisted, and a persisted run would be the editor's copy, blind to `taskwright validate` in a
   * terminal and to deleted runs: so the store is re-read and applied in a run of its own. Returns
   * how many tasks it showed.
   */
  restore(): number {
    const found: { task: Task; v: StoredValidation; startedAt: string }[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const [taskPath, latest] of latestValidations(defaultResultsDir(folder.uri.fsPath))) {
        const task = this.ctx.tasks.get(path.resolve(folder.uri.fsPath, taskPath));
        if (!task || !this.taskItem(task.dir)) continue;
        const shown = this.shownAt.get(task.dir);
        if (shown !== undefined && shown >= latest.startedAt) continue;
        found.push({ task, v: latest.validation, startedAt: latest.startedAt });
      }
    }
    if (!found.length) return 0;
    const items = found.map((f) => this.taskItem(f.task.dir)).filter((i): i is vscode.TestItem => i !== undefined);
    const run = this.controller.createTestRun(new vscode.TestRunRequest(items), 'Last validation (results store)', false);
    for (const f of found) this.applyValidation(run, f.task, f.v, [], f.startedAt);
    run.end();
    return found.length;
  }

  /** Marks a task's result as newer than any stored one (a run of this session). */
  shown(taskDir: string, startedAt: string): void {
    this.shownAt.set(taskDir, startedAt);
  }

  /** Forgets every shown result, as a reload does (the tests' stand-in for one). */
  forget(): void {
    this.states.clear();
    this.shownAt.clear();
  }

  stateOf(id: string): ItemState | undefined {
    return this.states.get(id);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.controller.dispose();
  }
}
