import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentResult } from '../agents/agent';
import type { InfraKind, TrialRecord } from '../results/trial';
import { planFor, type VerifierVerdict } from './formats';
import { limitsFor } from './limits';
import { writeRecordFile } from '../results/recover';
import { DEFAULT_TIMEOUT_POLICY } from '../results/timeoutPolicy';
import { stopAgentCommands } from './stopAgent';
import { freshHarnessDirs } from './harnessDirs';
import { classifyTrial, containerFault, deathPhase, type TrialFacts, type TrialPhase } from './outcome';
import {
  InfraError, LABEL, LABEL_HOST, LABEL_LEASE, LABEL_PID, LABEL_RUN, LABEL_TASK, LABEL_TRIAL,
} from './runtime';
import { ContainerSession } from './session';
import { isDiskFull } from '../results/diskFull';
import { CappedLog } from './cappedLog';
import { PathOutsideTaskError } from './contain';
import { ReadySnapshots } from './readySnapshots';
import type { TrialContext, TrialRequest, TrialResult } from './trialTypes';
import { afterVerifier } from './rewardDir';
import { packTar } from './tar';
import { testsArchive } from './testsArchive';

export { REWARD_FILE_LIMIT } from './rewardDir';
export type { BeforeVerifierHook, TrialContext, TrialRequest, TrialResult } from './trialTypes';

/** How long a stopped agent (a `command:` program above all) gets to exit before the trial moves on. */
const AGENT_STOP_WAIT_MS = 8_000;
/** Bound on the engine checks made after a failure, so a frozen engine cannot hold the trial. */
const EVIDENCE_TIMEOUT_MS = 10_000;

function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((resolve) => { t = setTimeout(() => resolve(fallback), ms); })]).finally(() => clearTimeout(t));
}

/** Test-only fault injection: `TASKWRIGHT_FAILPOINT=after-record-file` dies right after `record.json`. */
function failpoint(name: string): void {
  if (process.env.TASKWRIGHT_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}

function containerName(runId: string, trialId: string): string {
  return `tw-${runId}-${trialId}`.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').slice(0, 120);
}

const secs = (ms: number): number => Math.round(ms) / 1000;

/**
 * One trial: a fresh container from the task's image, the agent's phase, then the tests copied in
 * and the verifier run as the task's format prescribes. Whatever happens, the container is
 * force-removed before this returns; exactly one outcome is recorded (before the removal when a
 * verdict exists, so a process killed in between loses nothing).
 */
export async function runTrial(ctx: TrialContext, req: TrialRequest): Promise<TrialResult> {
  const { runtime, images } = ctx;
  const { task } = req;
  const startedAt = new Date().toISOString();
  const timeoutPolicy = req.timeoutPolicy ?? DEFAULT_TIMEOUT_POLICY;
  fs.mkdirSync(req.logDir, { recursive: true });
  const file = (n: string): string => path.join(req.logDir, n);
  // Command and build output as it comes (it may end mid-line); `say` for the trial's own lines.
  const emit = (t: string): void => req.onOutput?.(t);
  const say = (t: string): void => (req.onLine ?? req.onOutput)?.(t);
  const durations: { build: number | null; agent: number | null; verifier: number | null } = { build: null, agent: null, verifier: null };
  const facts: { -readonly [K in keyof TrialFacts]: TrialFacts[K] } = {};
  let verdict: VerifierVerdict | undefined;
  let agentResult: AgentResult | undefined;
  let retryable = false;
  let imageBuilt = false;
  let containerId: string | undefined;
  /** Where the trial's container ran (one engine of a pool), for the record. */
  let engine: string | undefined;
  let removed = false;
  let phase: TrialPhase | 'setup' = 'setup';
  /** OOM kills the engine reported while the verifier ran (undefined: not watched). */
  let oomWatch: { stop(): Promise<number> } | undefined;
  /** When the container was started and how long it had lived when the agent's phase ended (local clock). */
  let startedLocal: number | undefined;
  let agentEndedAfterMs: number | undefined;
  let recorded = false;

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
    say(`── ${task.id}: trial ${req.trialId} (${req.agent.spec}, attempt ${req.attempt}${req.try > 1 ? `, try ${req.try}` : ''})\n`);
    const image = await images.ensure(task, { logFile: file('build.log'), onLog: emit, signal: trialCtl.signal });
    if (!fs.existsSync(file('build.log'))) fs.writeFileSync(file('build.log'), `image ${image.ref} (built by a concurrent trial of this run)\n`);
    imageBuilt = image.built;
    durations.build = secs(Date.now() - buildStarted);

    const plan = planFor(task, image.ref, containerName(req.runId, req.trialId));
    const wallSec = task.timeouts.agentSec + task.timeouts.verifierSec + (req.wallClockSlackSec ?? 120);
    wallClock = setTimeout(() => trialCtl.abort('harness'), wallSec * 1000);

    const containerEnv = { ...image.env, ...plan.containerEnv };
    const workdir = task.environment.workdir ?? image.workdir;
    // An agent that runs nothing in its container starts from the state an earlier such trial
    // reached right before its verifier, when there is one (see readySnapshots.ts).
    const readyKey = ctx.ready && req.agent.inert && !req.beforeVerifier
      ? await ReadySnapshots.key({ image: image.ref, env: containerEnv, workdir, archive: () => testsArchive(task, plan.testsTarget, plan.mkdirs, plan.extraTestFiles) })
      : undefined;
    const fromReady = readyKey !== undefined ? ctx.ready?.ready(readyKey) : undefined;
    containerId = await runtime.start({
      image: fromReady ?? image.ref,
      name: containerName(req.runId, req.trialId),
      env: containerEnv,
      workdir,
      labels: {
        [LABEL]: '1', [LABEL_RUN]: req.runId, [LABEL_TRIAL]: req.trialId, [LABEL_TASK]: task.id,
        [LABEL_PID]: String(process.pid), [LABEL_HOST]: os.hostname(), ...(req.leased ? { [LABEL_LEASE]: '1' } : {}),
      },
      limits: limitsFor(task),
      networkMode: 'none',
      deadlineSec: wallSec,
      ...(req.snapshotted ? { snapshotBaseline: true } : {}),
    }, trialCtl.signal);
    startedLocal = Date.now();
    engine = runtime.endpointOf?.(containerId) ?? runtime.endpoint;
    // The harness's folders, as an archive (no process to start): before the agent's first command,
    // or, for an agent that never touches the container, together with the tests.
    const cid = containerId;
    let dirsReady: Promise<void> | undefined;
    const ensureDirs = (): Promise<void> => (dirsReady ??= runtime.putArchive(cid, '/', packTar(plan.mkdirs.map((d) => ({ name: d.replace(/^\/+/, ''), mode: 0o755, type: 'dir' as const })))));

    // Agent phase, bounded by the task's agent timeout: on expiry the container is removed.
    const agentCtl = new AbortController();
    const agentSignal = AbortSignal.any([agentCtl.signal, trialCtl.signal]);
    // `command:` agents reach a Docker container through DOCKER_HOST; a Pod has none (they get its name).
    const dockerHost = runtime.backend === 'kubernetes' ? undefined : runtime.endpointOf?.(containerId) ?? runtime.endpoint;
    const session = new ContainerSession(task, containerId, runtime, { dir: req.logDir, prefix: 'agent', onOutput: req.onOutput, onLine: req.onLine }, agentSignal, dockerHost, { user: task.agent.user, beforeFirstUse: ensureDirs });
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
    phase = 'agent';
    const agentRun = req.agent.run(session, agentSignal);
    // A stopped agent is waited for (bounded): a host `command:` program is killed, not left running.
    const agentStopped = (): Promise<unknown> => within(agentRun.catch(() => undefined), AGENT_STOP_WAIT_MS, undefined);
    const settled = await Promise.race([agentRun.then((r) => ({ r }), (e: unknown) => ({ e })), timedOut, cancelled]);
    clearTimeout(agentTimer);
    durations.agent = secs(Date.now() - agentStarted);
    agentEndedAfterMs = Date.now() - startedLocal;
    if (settled === 'timeout') {
      facts.agentTimedOut = true;
      if (timeoutPolicy === 'fail') {
        await agentStopped();
        session.log(`[agent timed out after ${task.timeouts.agentSec} s: container removed]`);
        return await finish();
      }
      // Timeout policy `verifier`: the commands in flight die at the deadline, then the verifier
      // judges what the agent left (twice: the agent may start one more while it is being stopped).
      await stopAgentCommands(runtime, containerId, trialCtl.signal);
      await agentStopped();
      await stopAgentCommands(runtime, containerId, trialCtl.signal);
      session.log(`[agent timed out after ${task.timeouts.agentSec} s: its commands were stopped; the verifier runs (timeout policy verifier)]`);
    } else if (settled === 'cancelled') {
      await agentStopped();
      return await finish();
    } else {
      if ('e' in settled) {
        if (settled.e instanceof InfraError || settled.e instanceof PathOutsideTaskError || isDiskFull(settled.e)) throw settled.e;
        agentResult = { status: 'error', error: settled.e instanceof Error ? settled.e.message : String(settled.e) };
      } else agentResult = settled.r;
      if (agentResult.status === 'error') session.log(`[agent error: ${agentResult.error ?? 'unknown'}]`);
    }

    // Whatever the agent did inside its container is its own outcome: a container that is no longer
    // running (its init killed, memory exhausted) ends the attempt as a counted failure.
    const afterAgent = await runtime.inspect(containerId);
    if (afterAgent && !afterAgent.running) {
      facts.containerDied = { phase: 'agent', oomKilled: afterAgent.oomKilled, detail: `the container stopped during the agent's phase (exit ${afterAgent.exitCode ?? '?'}${afterAgent.oomKilled ? ', OOM-killed' : ''})` };
      return await finish();
    }

    if (req.beforeVerifier) await req.beforeVerifier(new ContainerSession(task, containerId, runtime, { dir: req.logDir, prefix: 'probe', onOutput: req.onOutput, onLine: req.onLine }, trialCtl.signal, dockerHost, { beforeFirstUse: ensureDirs }));

    // Verifier phase: tests copied in only now, so the agent never saw them, into folders the
    // harness owns afresh (nothing the agent planted at the tests' or the reward's path survives).
    phase = 'verifier';
    if (!fromReady) {
      const fresh = await freshHarnessDirs(runtime, containerId, [plan.testsTarget, ...(plan.rewardDir ? [plan.rewardDir] : [])], trialCtl.signal);
      if (!fresh.ok) {
        facts.harnessTampered = fresh.detail;
        say(`[${fresh.detail}]\n`);
        return await finish();
      }
      if (fresh.cleared.length) fs.appendFileSync(file('agent.log'), `[removed what the agent's phase left at ${fresh.cleared.join(', ')} before the tests went in]\n`);
      await runtime.putArchive(containerId, '/', testsArchive(task, plan.testsTarget, plan.mkdirs, plan.extraTestFiles));
      // Inert trials of one kind keep this state for the next ones (only a clean one: the note
      // above would be missing from theirs).
      if (readyKey !== undefined && !fresh.cleared.length) await ctx.ready?.reached(readyKey, containerId, task.id);
    }
    oomWatch = await runtime.watchOom?.(containerId);
    const verifierStarted = Date.now();
    say(`$ ${plan.verifyCommand.join(' ')}\n`);
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
      say(`[verifier timed out after ${plan.verifierTimeoutSec} s: container removed]\n`);
      return await finish();
    }
    // The OOM events, the container's state and the reward folder, read at once; the reward only
    // counts when neither of the others shows a death (an error of its read only then, too).
    const { ooms, state, reward } = await afterVerifier(runtime, containerId, plan.rewardDir, req.logDir, verifierOomCount);
    const dropReward = (): void => { if (reward && 'folder' in reward) reward.folder.discard(); };
    if (state && !state.running) {
      dropReward();
      const died = deathPhase(state.lifetimeMs, agentEndedAfterMs);
      facts.containerDied = { phase: died, oomKilled: died === 'verifier' && ooms > 0, detail: `the container stopped ${died === 'agent' ? "during the agent's phase" : 'while the verifier ran'} (exit ${state.exitCode ?? '?'}${ooms ? ', OOM kill' : ''})` };
      return await finish();
    }
    // The engine saw an OOM kill while the verifier ran: it ran out of the task's memory, and the
    // reward it may have written is not a verdict.
    if (ooms > 0) {
      dropReward();
      facts.verifierOom = true;
      say(`[the verifier was OOM-killed (memory limit ${Math.round(limitsFor(task).memoryBytes / 1048576)} MB): not a verdict]\n`);
      return await finish();
    }
    if (reward && 'error' in reward) throw reward.error;
    const rewardFiles = reward?.folder.files ?? {};
    reward?.folder.keep();
    verdict = plan.verdict(v.stdout, v.stderr, v.exitCode ?? -1, rewardFiles);
    fs.writeFileSync(file('verdict.txt'), `exit ${v.exitCode}\n${verdict.detail}\n`);
    say(`verdict: ${verdict.detail}\n`);
    facts.reward = verdict.reward;
    return await finish();
  } catch (e) {
    if (e instanceof PathOutsideTaskError) {
      // The task's own files lead out of it: a task problem (never retried, never infra), and
      // nothing of it was sent (archives are listed in full before the first byte goes out).
      facts.taskProblem = { rule: e.rule, message: `${task.id}: ${e.message}` };
      say(`task problem (${e.rule}): ${e.message}\n`);
    } else if (isDiskFull(e)) {
      infra('disk-full', e instanceof Error ? e.message : String(e), false);
    } else if (e instanceof InfraError) {
      const reason = stopReason();
      if (reason === 'cancelled') facts.cancelled = true;
      else if (!(await diedFromWithin(e))) infra(e.kind, e.message, e.retryable);
    } else {
      infra('other', e instanceof Error ? e.message : String(e));
    }
    return await finish();
  } finally {
    clearTimeout(wallClock);
    void oomWatch?.stop();
    req.signal?.removeEventListener('abort', onCancel);
    if (containerId && !removed) await runtime.remove(containerId).catch(() => undefined);
  }

  /**
   * After an engine call on the container failed: was it the engine (infra), or did the container
   * die from within during the agent's or the verifier's phase (the attempt's outcome)? Decided by
   * the engine's ping and its record of the container, never by anything the agent can write.
   */
  async function diedFromWithin(e: InfraError): Promise<boolean> {
    if (!containerId || phase === 'setup' || e.kind.startsWith('provider-')) return false;
    const engineFault = e.kind === 'engine-unreachable';
    const healthy = !engineFault && await within(runtime.ping().then(() => true, () => false), EVIDENCE_TIMEOUT_MS, false);
    const state = healthy ? await within(runtime.inspect(containerId).catch(() => undefined), EVIDENCE_TIMEOUT_MS, undefined) : undefined;
    if (containerFault({ engineHealthy: healthy, engineFault, ...(state ? { state } : {}) }) !== 'container-died' || !state) return false;
    const died = phase === 'agent' ? 'agent' : deathPhase(state.lifetimeMs, agentEndedAfterMs);
    const ooms = phase === 'agent' ? 0 : await verifierOomCount();
    const oomKilled = died === 'agent' ? state.oomKilled : ooms > 0;
    facts.containerDied = { phase: died, oomKilled, detail: `the container stopped during the ${died === 'agent' ? "agent's phase" : 'verifier'} (exit ${state.exitCode ?? '?'}${oomKilled ? ', OOM kill' : ''}; engine healthy): ${e.message}` };
    return true;
  }

  async function verifierOomCount(): Promise<number> {
    const w = oomWatch;
    oomWatch = undefined;
    return w ? within(w.stop(), EVIDENCE_TIMEOUT_MS, 0) : 0;
  }

  async function removeContainer(): Promise<void> {
    if (!containerId || removed) return;
    removed = true;
    await runtime.remove(containerId).catch((e: unknown) => {
      // With the record saved, a container left behind is the reaper's to remove, not a new outcome.
      if (recorded) say(`could not remove container ${containerId?.slice(0, 12)}: ${String(e)}\n`);
      else infra('other', `could not remove container: ${String(e)}`);
    });
  }

  async function finish(): Promise<TrialResult> {
    // A verdict is saved before anything else can go wrong; otherwise the container goes first,
    // since a timed-out or cancelled phase may still be running inside it.
    const hasVerdict = facts.reward !== undefined && !facts.infra;
    if (!hasVerdict) await removeContainer();
    const result = buildRecord();
    writeRecordFile(req.logDir, result.record);
    failpoint('after-record-file');
    req.record?.(result.record);
    recorded = true;
    // With the verdict saved, the removal may run off the trial's path (the owner awaits it).
    if (req.removeLater && containerId && !removed) req.removeLater(removeContainer());
    else await removeContainer();
    return result;
  }

  function buildRecord(): TrialResult {
    const reason = stopReason();
    if (reason === 'cancelled') facts.cancelled = true;
    else if (reason === 'harness' && !facts.agentTimedOut && !facts.verifierTimedOut) {
      infra('harness-timeout', `the trial exceeded its wall clock (agent + verifier timeouts + slack); container removed`);
    }
    const c = classifyTrial({ ...facts, timeoutPolicy });
    if (facts.infra) say(`infra error (${facts.infra.kind}): ${facts.infra.message}\n`);
    if (facts.containerDied && c.outcome !== 'infra-error' && c.outcome !== 'cancelled') say(`${facts.containerDied.detail}\n`);
    say(`outcome: ${c.outcome}${c.reward !== null ? ` (reward ${c.reward})` : ''}\n`);
    const error = facts.containerDied && (c.outcome === 'agent-error' || c.outcome === 'verifier-error' || c.outcome === 'verifier-oom')
      ? facts.containerDied.detail
      : facts.harnessTampered ?? (agentResult?.status === 'error' ? agentResult.error ?? 'agent error' : undefined);
    const record: TrialRecord = {
      trial: req.trialId,
      task: req.taskPath,
      taskId: task.id,
      agent: req.agent.spec,
      ...(req.agent.model ? { model: req.agent.model } : {}),
      ...(req.checkpoint ? { checkpoint: req.checkpoint } : {}),
      ...(req.check ? { check: req.check } : {}),
      attempt: req.attempt,
      try: req.try,
      outcome: c.outcome,
      reward: c.reward,
      startedAt,
      durations: { ...durations },
      ...(facts.infra ? { infra: facts.infra } : {}),
      logs: req.logsRel,
      ...(verdict?.countedSkips ? { countedSkips: verdict.countedSkips } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(facts.taskProblem ? { taskProblem: facts.taskProblem, error: facts.taskProblem.message } : {}),
      ...(agentResult?.usage ? { usage: agentResult.usage } : {}),
      ...(agentResult?.costUsd !== undefined ? { costUsd: agentResult.costUsd } : {}),
      ...(agentResult?.steps !== undefined ? { steps: agentResult.steps } : {}),
      timeoutPolicy,
      ...(facts.agentTimedOut ? { agentTimedOut: true } : {}),
      ...(engine ? { engine } : {}),
    };
    return { record, verdict, imageBuilt, retryable: c.outcome === 'infra-error' && retryable };
  }
}
