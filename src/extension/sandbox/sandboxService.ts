import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Agent } from '../../core/agents/agent';
import type { Finding } from '../../core/model/finding';
import type { Task } from '../../core/model/task';
import { defaultResultsDir, newRunId, RunStore } from '../../core/results/store';
import type { TrialRecord } from '../../core/results/trial';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import { dockerGates } from '../../core/generate/gates';
import { enginesFromSettings, reportEngines } from './engines';
import { reapOrphans } from '../../core/sandbox/reaper';
import { countOutcomes, TrialRunner } from '../../core/sandbox/runner';
import { latestValidations, writeValidations, type StoredValidation } from '../../core/results/validations';
import type { TaskValidation } from '../../core/validate/types';
import { validateTasks, type ValidateOptions, type ValidateTarget } from '../../core/validate/validate';
import { openValidationResume, validateSettings } from '../../core/validate/resume';
import { taskDigests } from '../../core/results/taskDigest';
import type { RunTasks } from '../../core/sandbox/resume';
import type { Ctx } from '../context';
import type { StatusLevel } from '../tasks/status';

/** Dynamic findings are told apart from the static audit's by this diagnostic source. */
export const SANDBOX_SOURCE = 'taskwright sandbox';

const VERDICT_LEVEL: Readonly<Record<TaskValidation['verdict'], StatusLevel>> = {
  valid: 'ok', invalid: 'error', misaligned: 'error', brittle: 'warning', 'infra-error': 'warning',
};

const SEVERITY: Readonly<Record<Finding['severity'], vscode.DiagnosticSeverity>> = {
  error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, info: vscode.DiagnosticSeverity.Information,
};

function sandboxSetting<T>(key: string, fallback: T): T {
  return vscode.workspace.getConfiguration('taskwright').get<T>(`sandbox.${key}`) ?? fallback;
}

/** A cancellation token as an AbortSignal: the core's long work takes signals. */
function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const c = new AbortController();
  const sub = token.onCancellationRequested(() => c.abort(new Error('cancelled')));
  if (token.isCancellationRequested) c.abort(new Error('cancelled'));
  return { signal: c.signal, dispose: () => sub.dispose() };
}

/**
 * The editor's side of the sandbox: one engine connection, the "Taskwright Sandbox" log channel
 * that streams build and trial output, dynamic findings as diagnostics, and each task's last
 * validation (as its status icon). Trials are read back from the results store (the Runs view).
 */
export class SandboxService implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  private readonly diagnostics: vscode.DiagnosticCollection;
  private readonly lastValidation = new Map<string, StoredValidation>();
  /** The run each task's published validation came from, and when it started (a newer one replaces it). */
  private readonly publishedFrom = new Map<string, { readonly runDir: string; readonly startedAt: string }>();
  private reaped = false;

  constructor(private readonly ctx: Ctx) {
    this.output = vscode.window.createOutputChannel('Taskwright Sandbox', { log: true });
    this.diagnostics = vscode.languages.createDiagnosticCollection('taskwright-sandbox');
  }

  private resultsDir(task: Task): string {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(task.dir));
    return defaultResultsDir(folder?.uri.fsPath ?? path.dirname(task.dir));
  }

  private relPath(task: Task): string {
    return vscode.workspace.asRelativePath(task.dir, false);
  }

  private stream(text: string): void {
    for (const line of text.replace(/\n$/, '').split('\n')) this.output.info(line);
  }

  private async prepare(runtime: ContainerRuntime, signal: AbortSignal): Promise<void> {
    await runtime.ping(signal);
    if (!this.reaped) {
      const r = await reapOrphans(runtime);
      if (r.removed.length) this.output.info(`removed ${r.removed.length} container(s) left by a killed run`);
      this.reaped = true;
    }
  }

  lastValidationOf(taskDir: string): StoredValidation | undefined {
    return this.lastValidation.get(taskDir);
  }

  /** Validates tasks with progress and cancel; publishes diagnostics and status icons. */
  async validate(tasks: readonly Task[]): Promise<TaskValidation[]> {
    return vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification,
      title: tasks.length === 1 ? `Taskwright: validating ${tasks[0]?.id}` : `Taskwright: validating ${tasks.length} tasks`,
      cancellable: true,
    }, (progress, token) => this.validateWith(tasks, token, { progress }));
  }

  /**
   * Validates tasks under a caller's cancellation token (the Testing view's run): cancelling aborts
   * the validation, which stops and removes its containers. `onOutput` also receives the build and
   * trial output that goes to the Sandbox log.
   */
  async validateWith(tasks: readonly Task[], token: vscode.CancellationToken, opts: {
    readonly progress?: vscode.Progress<{ message?: string; increment?: number }>;
    readonly onOutput?: (text: string) => void;
  } = {}): Promise<TaskValidation[]> {
    return this.validating(tasks, token, opts, (runtime, concurrency) => {
      const runs = sandboxSetting('runs', 3);
      const first = tasks[0] as Task;
      const targets = tasks.map((task) => ({ task, path: this.relPath(task) }));
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(first.dir))?.uri.fsPath;
      const store = RunStore.create(this.resultsDir(first), {
        id: newRunId('validate'), kind: 'validate', tasks: targets.map((t) => t.path), attempts: runs, concurrency, retries: 2,
        // What a resume (Resume Run…, `validate --resume`) needs: the checks, the folder the paths are relative to, the digests.
        validate: validateSettings({}), ...(folder ? { cwd: folder } : {}), taskDigests: taskDigests(targets.map((t) => ({ path: t.path, dir: t.task.dir }))),
        startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
      });
      this.output.info(`validating ${tasks.length} task(s), ${runs} run(s) each; results in ${store.dir}`);
      return Promise.resolve({ store, targets, options: { runs, retries: 2 } });
    });
  }

  /**
   * Resume Run… on a validation: its checks without a verdict (missing, cancelled, lost to infra),
   * with its own options from run.json; the verdicts are published as a fresh validation's.
   */
  async resumeValidation(runDir: string, loaded: RunTasks, token: vscode.CancellationToken, opts: {
    readonly progress?: vscode.Progress<{ message?: string; increment?: number }>;
  } = {}): Promise<TaskValidation[]> {
    return this.validating([...loaded.tasks.values()], token, opts, async (runtime) => {
      const r = await openValidationResume(runtime, runDir, loaded);
      this.output.info(`resuming ${r.session.params.id}: checks with a verdict are kept; ${r.remaining} nop/oracle check(s) to run, and the snapshot checks without a verdict`);
      const { maxInfraRate: _m, ...options } = r.options;
      return { store: r.session.store, targets: r.targets, options, release: () => r.session.release() };
    });
  }

  /** One validation, fresh or resumed, with progress, cancel, status icons and diagnostics. */
  private async validating(tasks: readonly Task[], token: vscode.CancellationToken, opts: {
    readonly progress?: vscode.Progress<{ message?: string; increment?: number }>;
    readonly onOutput?: (text: string) => void;
  }, setup: (runtime: ContainerRuntime, concurrency: number) => Promise<{
    readonly store: RunStore; readonly targets: readonly ValidateTarget[]; readonly options: Pick<ValidateOptions, 'runs' | 'retries'> & Partial<ValidateOptions>; readonly release?: () => void;
  }>): Promise<TaskValidation[]> {
    const engines = enginesFromSettings(sandboxSetting('concurrency', 2), (l) => this.output.warn(l));
    const { runtime, concurrency } = engines;
    const progress = opts.progress;
    const { signal, dispose } = signalOf(token);
    const work = this.ctx.trials.begin(tasks.length);
    let release: (() => void) | undefined;
    try {
      for (const t of tasks) this.ctx.status.set(t.dir, 'validation', { level: 'running', summary: 'validating in Docker…' });
      await this.prepare(runtime, signal);
      if (!tasks.length) return [];
      const { store, targets, options, release: r } = await setup(runtime, concurrency);
      release = r;
      let last = 0;
      const results = await validateTasks(runtime, store, targets, {
        ...options, concurrency, signal,
        onOutput: (t) => { this.stream(t); opts.onOutput?.(t); },
        onProgress: (message, done, total) => {
          work.finished(done, total);
          const pct = total ? (done / total) * 100 : 0;
          progress?.report({ message, increment: Math.max(0, pct - last) });
          last = Math.max(last, pct);
        },
      });
      const counts: Record<string, number> = {};
      for (const r of results) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
      await reportEngines(engines, (l) => this.output.info(l));
      store.finish(counts);
      if (signal.aborted) throw new vscode.CancellationError();
      writeValidations(store.dir, results);
      const startedAt = new Date().toISOString();
      for (const [i, r] of results.entries()) {
        const task = targets[i]?.task;
        if (!task) continue;
        this.publish(task, r, { runDir: store.dir, startedAt });
      }
      this.output.info(`validation finished: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`);
      return results;
    } catch (e) {
      // Back to what the last finished validation said (or nothing): this one did not finish.
      for (const t of tasks) {
        const v = this.lastValidation.get(t.dir);
        this.ctx.status.set(t.dir, 'validation', v ? { level: VERDICT_LEVEL[v.verdict], summary: `last validation: ${v.verdict}` } : undefined);
      }
      throw signal.aborted ? new vscode.CancellationError() : e;
    } finally {
      release?.();
      work.dispose();
      dispose();
    }
  }

  /** Runs one trial of `agent` on a task (Rerun Task), streaming its output. */
  async rerun(task: Task, agent: Agent): Promise<TrialRecord | undefined> {
    return vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: `Taskwright: ${task.id} with ${agent.spec}`, cancellable: true,
    }, async (_progress, token) => {
      this.output.show(true);
      const records = await this.trialsWith(task, agent, 1, token);
      return records[records.length - 1];
    });
  }

  /**
   * Runs `attempts` trials of `agent` on a task under a caller's token (Rerun Task, the Testing
   * view's Oracle, Nop and Run Policy profiles), in one run of the results store. Cancelling stops
   * and removes the containers.
   */
  async trialsWith(task: Task, agent: Agent, attempts: number, token: vscode.CancellationToken, onOutput?: (text: string) => void): Promise<TrialRecord[]> {
    const { signal, dispose } = signalOf(token);
    const engines = enginesFromSettings(1, (l) => this.output.warn(l));
    const { runtime } = engines;
    const work = this.ctx.trials.begin(attempts);
    try {
      await this.prepare(runtime, signal);
      const store = RunStore.create(this.resultsDir(task), {
        id: newRunId(agent.spec.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 24)), kind: 'run', agent: agent.spec, tasks: [this.relPath(task)],
        attempts, concurrency: 1, retries: 2, startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
      });
      const runner = new TrialRunner({ runtime }, store);
      const records: TrialRecord[] = [];
      for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
        const rs = await runner.runJob({ task, taskPath: this.relPath(task), agent, attempt }, {
          concurrency: 1, retries: 2, signal, onOutput: (t) => { this.stream(t); onOutput?.(t); },
        });
        const last = rs[rs.length - 1];
        if (last) records.push(last.record);
        work.finished(attempt, attempts);
      }
      await reportEngines(engines, (l) => this.output.info(l));
      store.finish(countOutcomes(records));
      if (signal.aborted) throw new vscode.CancellationError();
      return records;
    } finally {
      work.dispose();
      dispose();
    }
  }

  /**
   * Publishes each task's latest validation found in the workspace's results stores (a validation of
   * an earlier session, or of `taskwright validate` in a terminal), unless a newer one is shown; drops
   * what came from a run that has since been deleted. Returns how many tasks it published.
   */
  restore(): number {
    let n = 0;
    for (const [dir, from] of [...this.publishedFrom]) {
      if (fs.existsSync(from.runDir)) continue;
      this.publishedFrom.delete(dir);
      this.lastValidation.delete(dir);
      this.ctx.status.set(dir, 'validation', undefined);
      for (const [uri] of this.diagnosticsOfTask(dir)) this.diagnostics.delete(uri);
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const [taskPath, latest] of latestValidations(defaultResultsDir(folder.uri.fsPath))) {
        const task = this.ctx.tasks.get(path.resolve(folder.uri.fsPath, taskPath));
        if (!task) continue;
        const shown = this.publishedFrom.get(task.dir);
        if (shown && (shown.runDir === latest.runDir || shown.startedAt >= latest.startedAt)) continue;
        this.publish(task, latest.validation, { runDir: latest.runDir, startedAt: latest.startedAt });
        n++;
      }
    }
    return n;
  }

  /** Tasks whose validation is shown (restored or from this session). */
  hasPublished(): boolean {
    return this.publishedFrom.size > 0;
  }

  private publish(task: Task, v: StoredValidation, from: { readonly runDir: string; readonly startedAt: string }): void {
    this.lastValidation.set(task.dir, v);
    this.publishedFrom.set(task.dir, from);
    const failed = v.checks.filter((c) => c.status === 'fail' || c.status === 'error').map((c) => c.name);
    this.ctx.status.set(task.dir, 'validation', {
      level: VERDICT_LEVEL[v.verdict],
      summary: `last validation: ${v.verdict}${failed.length ? ` (${failed.join(', ')})` : ''}`,
    });
    // Replace this task's dynamic diagnostics, file by file.
    for (const [uri] of this.diagnosticsOfTask(task.dir)) this.diagnostics.delete(uri);
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const f of v.findings) {
      const file = path.join(task.dir, f.file ?? task.configFile);
      const range = f.range
        ? new vscode.Range(f.range.start.line, f.range.start.character, f.range.end.line, f.range.end.character)
        : new vscode.Range(0, 0, 0, 0);
      const d = new vscode.Diagnostic(range, f.message, SEVERITY[f.severity]);
      d.source = SANDBOX_SOURCE;
      const docs = this.ctx.audit.ruleDocsUri(f.rule);
      d.code = docs ? { value: f.rule, target: docs } : f.rule;
      const list = byFile.get(file) ?? [];
      list.push(d);
      byFile.set(file, list);
    }
    for (const [file, list] of byFile) this.diagnostics.set(vscode.Uri.file(file), list);
  }

  /** The validation finding behind a sandbox diagnostic the editor hands back (matched by file, range and message). */
  findingAt(uri: vscode.Uri, d: vscode.Diagnostic): { taskDir: string; finding: Finding } | undefined {
    for (const [taskDir, v] of this.lastValidation) {
      if (!uri.fsPath.startsWith(taskDir + path.sep)) continue;
      const rel = path.relative(taskDir, uri.fsPath).split(path.sep).join('/');
      const f = v.findings.find((x) => (x.file ?? '') === rel && x.message === d.message
        && (x.range ? x.range.start.line === d.range.start.line && x.range.start.character === d.range.start.character : d.range.start.line === 0));
      if (f) return { taskDir, finding: { ...f, source: 'validate' } };
    }
    return undefined;
  }

  /**
   * Validates a scratch copy of a task (a proposed fix) with the sandbox settings, into a results
   * store of its own in the temp folder (a check of a draft is not one of the workspace's runs).
   */
  async validateDraft(task: Task, signal: AbortSignal): Promise<readonly Finding[]> {
    const engines = enginesFromSettings(sandboxSetting('concurrency', 2), (l) => this.output.warn(l));
    const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskwright-fix-validate-'));
    try {
      await this.prepare(engines.runtime, signal);
      const gates = dockerGates({ runtime: engines.runtime, resultsDir, runs: sandboxSetting('runs', 3), concurrency: engines.concurrency, onOutput: (t) => this.stream(t) });
      const { validation } = await gates.validate(task, signal, (m) => this.output.info(m));
      await reportEngines(engines, (l) => this.output.info(l));
      return validation.findings;
    } finally {
      fs.rmSync(resultsDir, { recursive: true, force: true });
    }
  }

  private diagnosticsOfTask(taskDir: string): [vscode.Uri, readonly vscode.Diagnostic[]][] {
    const out: [vscode.Uri, readonly vscode.Diagnostic[]][] = [];
    this.diagnostics.forEach((uri, list) => {
      if (uri.fsPath.startsWith(taskDir + path.sep)) out.push([uri, list]);
    });
    return out;
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.output.dispose();
  }
}

/** The sandbox service of this extension context, created on first use and disposed with it. */
export function sandboxOf(ctx: Ctx): SandboxService {
  return ctx.service(SandboxService);
}
