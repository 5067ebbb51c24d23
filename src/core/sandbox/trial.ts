import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Agent, AgentResult, TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import type { InfraKind, TrialRecord } from '../results/trial';
import { planFor, type VerifierVerdict } from './formats';
import type { ImageCache } from './image';
import { limitsFor } from './limits';
import { classifyTrial, type TrialFacts } from './outcome';
import {
  InfraError, LABEL, LABEL_HOST, LABEL_PID, LABEL_RUN, LABEL_TASK, LABEL_TRIAL, type ContainerRuntime,
} from './runtime';
import { ContainerSession } from './session';
import type { Readable } from 'node:stream';
import { isDiskFull } from '../results/diskFull';
import { CappedLog } from './cappedLog';
import { PathOutsideTaskError } from './contain';
import { entriesFromDir, entryFromFile, packTar, tarStream, type TarEntry } from './tar';
import { CappedBytes, readTarStream } from './tarReader';

/** Reward files are a number or a small JSON object: more than this is not a reward file. */
export const REWARD_FILE_LIMIT = 64 * 1024;

/** Runs before the verifier in the trial's container (validate's reward-isolation probes use it). */
export type BeforeVerifierHook = (session: TrialSession) => Promise<void>;

export interface TrialRequest {
  readonly task: Task;
  /** The task path as the user gave it (kept in the record). */
  readonly taskPath: string;
  readonly agent: Agent;
  readonly runId: string;
  readonly trialId: string;
  readonly attempt: number;
  readonly try: number;
  readonly checkpoint?: string;
  /** Absolute folder for this trial's logs, and the same relative to the run folder. */
  readonly logDir: string;
  readonly logsRel: string;
  readonly beforeVerifier?: BeforeVerifierHook;
  readonly onOutput?: (text: string) => void;
  readonly signal?: AbortSignal;
  /** Slack on top of the agent and verifier timeouts before the harness itself gives up. */
  readonly wallClockSlackSec?: number;
}

export interface TrialContext {
  readonly runtime: ContainerRuntime;
  readonly images: ImageCache;
}

export interface TrialResult {
  readonly record: TrialRecord;
  readonly verdict?: VerifierVerdict;
  readonly imageBuilt: boolean;
  readonly retryable: boolean;
}

function containerName(runId: string, trialId: string): string {
  return `tw-${runId}-${trialId}`.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').slice(0, 120);
}

/**
 * The verifier's files as one archive extracted at `/`: the harness folders (again, harmlessly, if
 * the agent phase created them) and the tests under `testsTarget`.
 */
function testsArchive(task: Task, testsTarget: string, dirs: readonly string[], extra: readonly (readonly [string, string])[]): Readable {
  const target = testsTarget.replace(/^\/+/, '');
  const testsDir = path.resolve(task.dir, task.verifier.testsDir);
  const entries: TarEntry[] = dirs.map((d) => ({ name: d.replace(/^\/+/, ''), mode: 0o755, type: 'dir' as const }));
  // Every path is checked before anything is sent: a link out of the task refuses the whole archive.
  if (fs.existsSync(testsDir)) entries.push(...entriesFromDir(testsDir, target, { within: task.dir }));
  for (const [rel, name] of extra) {
    const abs = path.resolve(task.dir, rel);
    const full = `${target}/${name}`;
    const i = entries.findIndex((e) => e.name === full);
    if (i >= 0) entries.splice(i, 1);
    if (fs.existsSync(abs) || isLink(abs)) entries.push(entryFromFile(abs, full, task.dir));
    // TB1 falls back to running the tests with pytest when a task ships no run-tests.sh.
    else if (task.format === 'tb1' && name === 'run-tests.sh') entries.push({ name: full, mode: 0o755, type: 'file', data: Buffer.from(TB1_DEFAULT_RUN_TESTS) });
  }
  return tarStream(entries);
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const TB1_DEFAULT_RUN_TESTS = '#!/bin/bash\n# taskwright: the task has no run-tests.sh; run its tests as TB1 does by default\npython3 -m pytest "$TEST_DIR" -rA\n';

const secs = (ms: number): number => Math.round(ms) / 1000;

/**
 * One trial: a fresh container from the task's image, the agent's phase, then the tests copied in
 * and the verifier run as the task's format prescribes. Whatever happens, the container is
 * force-removed before this returns; exactly one outcome is recorded.
 */
export async function runTrial(ctx: TrialContext, req: TrialRequest): Promise<TrialResult> {
  const { runtime, images } = ctx;
  const { task } = req;
  const startedAt = new Date().toISOString();
  fs.mkdirSync(req.logDir, { recursive: true });
  const file = (n: string): string => path.join(req.logDir, n);
  const emit = (t: string): void => req.onOutput?.(t);
  const durations: { build: number | null; agent: number | null; verifier: number | null } = { build: null, agent: null, verifier: null };
  const facts: { -readonly [K in keyof TrialFacts]: TrialFacts[K] } = {};
  let verdict: VerifierVerdict | undefined;
  let agentResult: AgentResult | undefined;
  let retryable = false;
  let imageBuilt = false;
  let containerId: string | undefined;
  let removed = false;

  // Cancellation (the caller's signal) and the harness's own wall clock share one controller; the
  // reason tells them apart. Aborting only stops waiting: the container removal below stops the work.
  const trialCtl = new AbortController();
  const onCancel = (): void => trialCtl.abort('cancelled');
  if (req.signal?.aborted) trialCtl.abort('cancelled');
  req.signal?.addEventListener('abort', onCancel);
  let wallClock: NodeJS.Timeout | undefined;
  const stopReason = (): 'cancelled' | 'harness' | undefined =>
    trialCtl.signal.aborted ? (trialCtl.signal.reason === 'harness' ? 'harness' : 'cancelled') : undefined;
  const infra = (kind: InfraKind, message: string, canRetry = true): void => {
    if (!facts.infra) facts.infra = { kind, message };
    retryable = canRetry;
  };

  try {
    const buildStarted = Date.now();
    emit(`── ${task.id}: trial ${req.trialId} (${req.agent.spec}, attempt ${req.attempt}${req.try > 1 ? `, try ${req.try}` : ''})\n`);
    const image = await images.ensure(task, { logFile: file('build.log'), onLog: emit, signal: trialCtl.signal });
    if (!fs.existsSync(file('build.log'))) fs.writeFileSync(file('build.log'), `image ${image.ref} (built by a concurrent trial of this run)\n`);
    imageBuilt = image.built;
    durations.build = secs(Date.now() - buildStarted);

    const plan = planFor(task, image.ref, containerName(req.runId, req.trialId));
    const wallSec = task.timeouts.agentSec + task.timeouts.verifierSec + (req.wallClockSlackSec ?? 120);
    wallClock = setTimeout(() => trialCtl.abort('harness'), wallSec * 1000);

    containerId = await runtime.start({
      image: image.ref,
      name: containerName(req.runId, req.trialId),
      env: { ...image.env, ...plan.containerEnv },
      workdir: task.environment.workdir ?? image.workdir,
      labels: {
        [LABEL]: '1', [LABEL_RUN]: req.runId, [LABEL_TRIAL]: req.trialId, [LABEL_TASK]: task.id,
        [LABEL_PID]: String(process.pid), [LABEL_HOST]: os.hostname(),
      },
      limits: limitsFor(task),
      networkMode: 'none',
    }, trialCtl.signal);
    // The harness's folders, as an archive (no process to start): before the agent's first command,
    // or, for an agent that never touches the container, together with the tests.
    const cid = containerId;
    let dirsReady: Promise<void> | undefined;
    const ensureDirs = (): Promise<void> => (dirsReady ??= runtime.putArchive(cid, '/', packTar(plan.mkdirs.map((d) => ({ name: d.replace(/^\/+/, ''), mode: 0o755, type: 'dir' as const })))));

    // Agent phase, bounded by the task's agent timeout: on expiry the container is removed.
    const agentCtl = new AbortController();
    const agentSignal = AbortSignal.any([agentCtl.signal, trialCtl.signal]);
    const session = new ContainerSession(task, containerId, runtime, { dir: req.logDir, prefix: 'agent', onOutput: req.onOutput }, agentSignal, runtime.endpoint, { user: task.agent.user, beforeFirstUse: ensureDirs });
    fs.writeFileSync(file('agent.log'), '');
    const agentStarted = Date.now();
    let agentTimer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      agentTimer = setTimeout(() => { agentCtl.abort('timeout'); resolve('timeout'); }, task.timeouts.agentSec * 1000);
    });
    const cancelled = new Promise<'cancelled'>((resolve) => {
      if (trialCtl.signal.aborted) resolve('cancelled');
      trialCtl.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
    const agentRun = req.agent.run(session, agentSignal);
    const settled = await Promise.race([agentRun.then((r) => ({ r }), (e: unknown) => ({ e })), timedOut, cancelled]);
    clearTimeout(agentTimer);
    durations.agent = secs(Date.now() - agentStarted);
    if (settled === 'timeout') {
      facts.agentTimedOut = true;
      agentRun.catch(() => undefined);
      session.log(`[agent timed out after ${task.timeouts.agentSec} s: container removed]`);
      return await finish();
    }
    if (settled === 'cancelled') {
      agentRun.catch(() => undefined);
      return await finish();
    }
    if ('e' in settled) {
      if (settled.e instanceof InfraError || settled.e instanceof PathOutsideTaskError || isDiskFull(settled.e)) throw settled.e;
      agentResult = { status: 'error', error: settled.e instanceof Error ? settled.e.message : String(settled.e) };
    } else agentResult = settled.r;
    if (agentResult.status === 'error') session.log(`[agent error: ${agentResult.error ?? 'unknown'}]`);

    if (req.beforeVerifier) await req.beforeVerifier(new ContainerSession(task, containerId, runtime, { dir: req.logDir, prefix: 'probe', onOutput: req.onOutput }, trialCtl.signal, runtime.endpoint, { beforeFirstUse: ensureDirs }));

    // Verifier phase: tests copied in only now, so the agent never saw them.
    await runtime.putArchive(containerId, '/', testsArchive(task, plan.testsTarget, plan.mkdirs, plan.extraTestFiles));
    const verifierStarted = Date.now();
    emit(`$ ${plan.verifyCommand.join(' ')}\n`);
    const vOut = new CappedLog(file('verifier.stdout'));
    const vErr = new CappedLog(file('verifier.stderr'));
    const v = await runtime.exec(containerId, {
      cmd: plan.verifyCommand,
      env: plan.verifierEnv,
      user: task.verifier.user,
      timeoutMs: plan.verifierTimeoutSec * 1000,
      signal: trialCtl.signal,
      onStdout: (c) => { vOut.write(c); emit(c.toString('utf8')); },
      onStderr: (c) => { vErr.write(c); emit(c.toString('utf8')); },
    });
    vOut.end();
    vErr.end();
    durations.verifier = secs(Date.now() - verifierStarted);
    if (v.cancelled) return await finish();
    if (v.timedOut) {
      facts.verifierTimedOut = true;
      emit(`[verifier timed out after ${plan.verifierTimeoutSec} s: container removed]\n`);
      return await finish();
    }
    const rewardFiles = plan.rewardDir ? await readRewardDir(runtime, containerId, plan.rewardDir, req.logDir) : {};
    verdict = plan.verdict(v.stdout, v.stderr, v.exitCode ?? -1, rewardFiles);
    fs.writeFileSync(file('verdict.txt'), `exit ${v.exitCode}\n${verdict.detail}\n`);
    emit(`verdict: ${verdict.detail}\n`);
    facts.reward = verdict.reward;
    return await finish();
  } catch (e) {
    if (e instanceof PathOutsideTaskError) {
      // The task's own files lead out of it: a task problem (never retried, never infra), and
      // nothing of it was sent (archives are listed in full before the first byte goes out).
      facts.taskProblem = { rule: e.rule, message: `${task.id}: ${e.message}` };
      emit(`task problem (${e.rule}): ${e.message}\n`);
    } else if (isDiskFull(e)) {
      infra('disk-full', e instanceof Error ? e.message : String(e), false);
    } else if (e instanceof InfraError) {
      const reason = stopReason();
      if (reason === 'cancelled') facts.cancelled = true;
      else infra(e.kind, e.message, e.retryable);
    } else {
      infra('other', e instanceof Error ? e.message : String(e));
    }
    return await finish();
  } finally {
    clearTimeout(wallClock);
    req.signal?.removeEventListener('abort', onCancel);
    if (containerId && !removed) await runtime.remove(containerId).catch(() => undefined);
  }

  async function finish(): Promise<TrialResult> {
    // Remove first: a timed-out or cancelled phase may still be running inside the container.
    if (containerId && !removed) {
      removed = true;
      await runtime.remove(containerId).catch((e: unknown) => infra('other', `could not remove container: ${String(e)}`));
    }
    const reason = stopReason();
    if (reason === 'cancelled') facts.cancelled = true;
    else if (reason === 'harness' && !facts.agentTimedOut && !facts.verifierTimedOut) {
      infra('harness-timeout', `the trial exceeded its wall clock (agent + verifier timeouts + slack); container removed`);
    }
    const c = classifyTrial(facts);
    if (facts.infra) emit(`infra error (${facts.infra.kind}): ${facts.infra.message}\n`);
    emit(`outcome: ${c.outcome}${c.reward !== null ? ` (reward ${c.reward})` : ''}\n`);
    const record: TrialRecord = {
      trial: req.trialId,
      task: req.taskPath,
      taskId: task.id,
      agent: req.agent.spec,
      ...(req.agent.model ? { model: req.agent.model } : {}),
      ...(req.checkpoint ? { checkpoint: req.checkpoint } : {}),
      attempt: req.attempt,
      try: req.try,
      outcome: c.outcome,
      reward: c.reward,
      startedAt,
      durations: { ...durations },
      ...(facts.infra ? { infra: facts.infra } : {}),
      logs: req.logsRel,
      ...(verdict?.countedSkips ? { countedSkips: verdict.countedSkips } : {}),
      ...(agentResult?.status === 'error' ? { error: agentResult.error ?? 'agent error' } : {}),
      ...(facts.taskProblem ? { taskProblem: facts.taskProblem, error: facts.taskProblem.message } : {}),
      ...(agentResult?.usage ? { usage: agentResult.usage } : {}),
      ...(agentResult?.costUsd !== undefined ? { costUsd: agentResult.costUsd } : {}),
      ...(agentResult?.steps !== undefined ? { steps: agentResult.steps } : {}),
    };
    return { record, verdict, imageBuilt, retryable: c.outcome === 'infra-error' && retryable };
  }
}

/**
 * The verifier's reward folder, streamed: reward.txt / reward.json kept in memory up to a small
 * limit (a bigger one is not a reward), the folder's other files written to the trial's
 * `verifier-files/` with the log cap. What the verifier writes never lands in memory whole.
 */
async function readRewardDir(runtime: ContainerRuntime, containerId: string, rewardDir: string, logDir: string): Promise<Record<string, string | undefined>> {
  const stream = await runtime.getArchive(containerId, rewardDir);
  if (!stream) return {};
  const rewards = new Map<string, CappedBytes>();
  await readTarStream(stream, (name, size) => {
    // Only the folder's own files: what the verifier wrote (reward.txt, reward.json, its logs).
    if (name.split('/').filter(Boolean).length !== 2) return undefined;
    const base = path.posix.basename(name);
    if (base === 'reward.txt' || base === 'reward.json') {
      const sink = new CappedBytes(REWARD_FILE_LIMIT);
      rewards.set(base, sink);
      return sink;
    }
    void size;
    fs.mkdirSync(path.join(logDir, 'verifier-files'), { recursive: true });
    const dest = path.join(logDir, 'verifier-files', base);
    fs.writeFileSync(dest, '');
    return new CappedLog(dest);
  });
  const out: Record<string, string | undefined> = {};
  for (const [base, sink] of rewards) {
    const bytes = sink.bytes();
    fs.writeFileSync(path.join(logDir, base), bytes);
    // An oversized reward file is unreadable as a reward: the verdict says "no reward".
    out[base] = sink.truncated ? undefined : bytes.toString('utf8');
  }
  return out;
}
