import * as vscode from 'vscode';
import type { Agent } from '../../core/agents/agent';
import { createAgent } from '../../core/agents/factory';
import type { Task } from '../../core/model/task';
import type { TrialRecord } from '../../core/results/trial';
import { agentFromSpec } from '../model/keys';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { sandboxOf } from '../sandbox/sandboxService';
import { requireTrust } from '../trust';
import { attemptState, CHECKS, trialState } from './checks';
import { checkItemId, type TaskTests } from './controller';

export type ProfileKind = 'validate' | 'oracle' | 'nop' | 'policy';

/** Shared with Run Policy…: the last agent spec typed is offered again. */
const LAST_SPEC_KEY = 'taskwright.band.lastAgentSpec';

const LABEL: Readonly<Record<ProfileKind, string>> = { validate: 'Validate', oracle: 'Oracle', nop: 'Nop', policy: 'Run Policy…' };

/** Trial output for Test Results, whose terminal wants CRLF line ends. */
const crlf = (t: string): string => t.replace(/\r?\n/g, '\r\n');

/**
 * The Testing view's run profiles: Validate (default) runs the whole validation of each task and
 * reports every check; Oracle and Nop one trial each; Run Policy… attempts of an agent the user names.
 * Each run goes through the sandbox service, so it lands in the results store like the commands'.
 */
export class TestProfiles implements vscode.Disposable {
  readonly profiles: ReadonlyMap<ProfileKind, vscode.TestRunProfile>;
  /** The last run of each kind, for the tests (resolves when it has ended). */
  lastRun: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: Ctx, private readonly tests: TaskTests) {
    const c = tests.controller;
    const make = (kind: ProfileKind): vscode.TestRunProfile => c.createRunProfile(LABEL[kind], vscode.TestRunProfileKind.Run,
      (request, token) => this.handle(kind, request, token), kind === 'validate');
    this.profiles = new Map((['validate', 'oracle', 'nop', 'policy'] as const).map((k) => [k, make(k)]));
  }

  /** Runs `kind` on the request's tasks (the whole tree when it names none). */
  handle(kind: ProfileKind, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const p = this.run(kind, request, token);
    this.lastRun = p.catch(() => undefined);
    return p;
  }

  private tasksOf(request: vscode.TestRunRequest): Task[] {
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const roots: vscode.TestItem[] = [];
    if (request.include) roots.push(...request.include);
    else this.tests.controller.items.forEach((i) => roots.push(i));
    const out = new Map<string, Task>();
    const visit = (item: vscode.TestItem): void => {
      if (excluded.has(item.id)) return;
      if (item.id.startsWith('dataset:')) {
        item.children.forEach(visit);
        return;
      }
      const task = this.tests.taskOf(item);
      if (task && !excluded.has(`task:${task.dir}`)) out.set(task.dir, task);
    };
    roots.forEach(visit);
    return [...out.values()];
  }

  private async run(kind: ProfileKind, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    // Untrusted workspaces run nothing: building an image runs the task's code.
    if (!requireTrust(`Running tasks from the Testing view (${LABEL[kind]})`, `testing:${kind}`)) return;
    const tasks = this.tasksOf(request);
    if (!tasks.length) return;
    let agent: Agent | undefined;
    let attempts = 1;
    if (kind === 'policy') {
      const asked = await this.askPolicy();
      if (!asked) return;
      ({ agent, attempts } = asked);
    } else if (kind !== 'validate') {
      agent = createAgent(kind);
    }
    const run = this.tests.controller.createTestRun(request, `Taskwright: ${LABEL[kind]}${agent && kind === 'policy' ? ` (${agent.spec})` : ''}`, false);
    try {
      if (kind === 'validate') await this.validate(run, tasks, token);
      else for (const task of tasks) {
        if (token.isCancellationRequested) break;
        await this.trials(run, kind, task, agent!, attempts, token);
      }
    } finally {
      run.end();
    }
  }

  private async askPolicy(): Promise<{ agent: Agent; attempts: number } | undefined> {
    const last = this.ctx.extension.workspaceState.get<string>(LAST_SPEC_KEY);
    const spec = await vscode.window.showInputBox({
      prompt: 'Agent spec', value: last ?? 'anthropic:claude-sonnet-4-5',
      placeHolder: 'anthropic:<model> · openai:<model>@http://host:8000/v1 · command:<program> · oracle · nop',
      validateInput: (v) => (/^(oracle|nop|anthropic:.+|openai:.+|command:.+)$/.test(v.trim()) ? undefined : 'anthropic:<model>, openai:<model>@<base-url>, command:<program>, oracle or nop'),
    });
    if (!spec) return undefined;
    const n = await vscode.window.showInputBox({
      prompt: 'Attempts per task', value: '2', validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'a whole number ≥ 1'),
    });
    if (!n) return undefined;
    await this.ctx.extension.workspaceState.update(LAST_SPEC_KEY, spec.trim());
    return { agent: await agentFromSpec(this.ctx, spec.trim()), attempts: Number(n) };
  }

  private async validate(run: vscode.TestRun, tasks: readonly Task[], token: vscode.CancellationToken): Promise<void> {
    for (const task of tasks) {
      const item = this.tests.taskItem(task.dir);
      if (!item) continue;
      this.tests.ensureChecks(item);
      this.tests.report(run, item, 'running');
      for (const check of CHECKS) {
        const ci = item.children.get(checkItemId(task.dir, check));
        if (ci) run.enqueued(ci);
      }
    }
    const only = tasks.length === 1 ? this.tests.taskItem(tasks[0]!.dir) : undefined;
    try {
      const results = await sandboxOf(this.ctx).validateWith(tasks, token, { onOutput: (t) => run.appendOutput(crlf(t), undefined, only) });
      const endedAt = new Date().toISOString();
      for (const [i, v] of results.entries()) {
        const task = tasks[i];
        if (task) this.tests.applyValidation(run, task, v, v.trials, endedAt);
      }
    } catch (e) {
      this.settle(run, tasks, e, token);
    }
  }

  private async trials(run: vscode.TestRun, kind: ProfileKind, task: Task, agent: Agent, attempts: number, token: vscode.CancellationToken): Promise<void> {
    const item = this.tests.check(task.dir, kind === 'policy' ? 'policy' : kind);
    if (!item) return;
    if (kind === 'policy') {
      item.children.replace(Array.from({ length: attempts }, (_, i) => this.tests.controller.createTestItem(
        checkItemId(task.dir, `policy#${i + 1}`), `attempt ${i + 1} · ${agent.spec}`, item.uri)));
    }
    this.tests.report(run, item, 'running');
    try {
      const records = await sandboxOf(this.ctx).trialsWith(task, agent, attempts, token, (t) => run.appendOutput(crlf(t), undefined, item));
      if (kind === 'policy') this.reportAttempts(run, task, item, records);
      else {
        const t = records[records.length - 1];
        if (!t) throw new Error('no trial was recorded');
        const s = trialState(kind === 'oracle' ? 'oracle' : 'nop', t);
        const file = kind === 'oracle' ? task.solution.file : task.verifier.entry;
        this.tests.report(run, item, s.state, s.state === 'passed' ? [] : [this.tests.message(task, { message: s.message, ...(file ? { file } : {}) })], durationOf(t));
      }
    } catch (e) {
      this.settle(run, [task], e, token, item);
    }
  }

  private reportAttempts(run: vscode.TestRun, task: Task, item: vscode.TestItem, records: readonly TrialRecord[]): void {
    let passed = 0;
    let counted = 0;
    for (const t of records) {
      const child = item.children.get(checkItemId(task.dir, `policy#${t.attempt}`));
      const s = attemptState(t);
      if (s.state !== 'errored') counted++;
      if (s.state === 'passed') passed++;
      if (child) this.tests.report(run, child, s.state, s.state === 'passed' ? [] : [this.tests.message(task, { message: s.message, file: task.verifier.entry })], durationOf(t));
    }
    // The attempts item passes when any counted attempt did (pass@k); all lost to infra is errored.
    const summary = `${passed} of ${counted} counted attempt(s) passed${records.length > counted ? `, ${records.length - counted} lost to infra` : ''}`;
    const state = counted === 0 ? 'errored' : passed > 0 ? 'passed' : 'failed';
    this.tests.report(run, item, state, state === 'passed' ? [] : [this.tests.message(task, { message: summary })]);
  }

  /** A run that did not finish: cancelled items are skipped, anything else is errored (infra, never failed). */
  private settle(run: vscode.TestRun, tasks: readonly Task[], e: unknown, token: vscode.CancellationToken, only?: vscode.TestItem): void {
    const cancelled = token.isCancellationRequested || e instanceof vscode.CancellationError;
    if (!cancelled) this.ctx.log.warn(`Testing run failed: ${errorMessage(e)}`);
    for (const task of tasks) {
      const items = only ? [only] : [this.tests.taskItem(task.dir)].filter((i): i is vscode.TestItem => i !== undefined);
      for (const item of items) {
        if (cancelled) this.tests.report(run, item, 'skipped');
        else this.tests.report(run, item, 'errored', [this.tests.message(task, { message: errorMessage(e) })]);
      }
    }
  }

  dispose(): void {
    for (const p of this.profiles.values()) p.dispose();
  }
}

function durationOf(t: TrialRecord): number {
  return Math.round(((t.durations.build ?? 0) + (t.durations.agent ?? 0) + (t.durations.verifier ?? 0)) * 1000);
}

