import path from 'node:path';
import type { Agent } from '../../core/agents/agent';
import { AgentSpecError, createAgent } from '../../core/agents/factory';
import { isDiskFull } from '../../core/results/diskFull';
import { DEFAULT_MAX_INFRA_RATE, describeInfraRate, infraRate } from '../../core/results/infraRate';
import { newRunId, readTrialsFile, RunStore, TRIALS_FILE } from '../../core/results/store';
import { DEFAULT_TIMEOUT_POLICY, TIMEOUT_POLICIES, type TimeoutPolicy } from '../../core/results/timeoutPolicy';
import type { TrialRecord } from '../../core/results/trial';
import { taskDigests } from '../../core/results/taskDigest';
import { ResumeError, type RunResumeSession } from '../../core/sandbox/resume';
import { countOutcomes, TrialRunner, type TrialJob } from '../../core/sandbox/runner';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import type { Engines } from '../../core/sandbox/connect';
import { BACKEND_OPTIONS, BACKEND_USAGE, enginesOf, finishEngines } from '../engines';
import { boolOpt, choiceOpt, intOpt, rateOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { liveEcho } from '../liveOutput';
import { prepareResume } from './runResume';
import { prepareEngine, resolveTargets, resultsDirOf } from './validate';

function formatRecord(r: TrialRecord): string {
  const reward = r.reward === null ? '-' : String(r.reward);
  const d = r.durations;
  const t = [d.agent, d.verifier].map((x) => (x === null ? '-' : `${x.toFixed(1)}s`)).join('/');
  const infra = r.infra ? `  ${r.infra.kind}: ${r.infra.message}` : '';
  const late = r.agentTimedOut && r.outcome !== 'agent-timeout' ? '  (agent timed out; verifier verdict)' : '';
  return `  ${r.outcome.padEnd(16)} reward ${reward.padEnd(4)} ${t.padEnd(12)} ${r.taskId ?? r.task} #${r.attempt}${r.try && r.try > 1 ? ` (try ${r.try})` : ''}${infra}${late}`;
}

/** What a run executes, fresh or resumed. */
interface RunSetup {
  readonly store: RunStore;
  readonly agent: Agent;
  readonly jobs: readonly TrialJob[];
  readonly retries: number;
  readonly checkpoint?: string;
  readonly timeoutPolicy: TimeoutPolicy;
  readonly maxInfraRate: number;
  readonly concurrency: number;
  readonly resume?: RunResumeSession;
}

function makeAgent(spec: string): Agent {
  try {
    return createAgent(spec);
  } catch (e) {
    if (e instanceof AgentSpecError) throw new UsageError(e.message);
    throw e;
  }
}

async function freshRun(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string, concurrency: number): Promise<RunSetup | undefined> {
  if (!args.positionals.length) throw new UsageError('give at least one task folder or folder of tasks (or --resume RUN)');
  const spec = stringOpt(args, 'agent');
  if (!spec) throw new UsageError('--agent is required (oracle or nop)');
  const agent = makeAgent(spec);
  const attempts = intOpt(args, 'attempts', 1);
  const retries = intOpt(args, 'retries', 2, 0);
  const checkpoint = stringOpt(args, 'checkpoint');
  const timeoutPolicy = choiceOpt(args, 'timeout-policy', TIMEOUT_POLICIES, DEFAULT_TIMEOUT_POLICY);
  const maxInfraRate = rateOpt(args, 'max-infra-rate', DEFAULT_MAX_INFRA_RATE);
  const targets = await resolveTargets(args.positionals, io);
  if (!(await prepareEngine(runtime, io, resultsDir))) return undefined;
  const store = RunStore.create(resultsDir, {
    id: newRunId(agent.spec.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 24)), kind: 'run', agent: agent.spec,
    ...(agent.model ? { model: agent.model } : {}), ...(checkpoint ? { checkpoint } : {}),
    tasks: targets.map((t) => t.path), attempts, concurrency, retries, timeoutPolicy, maxInfraRate, cwd: io.cwd,
    taskDigests: taskDigests(targets.map((t) => ({ path: t.path, dir: t.task.dir }))),
    startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
  });
  const jobs: TrialJob[] = [];
  for (let a = 1; a <= attempts; a++) for (const t of targets) jobs.push({ task: t.task, taskPath: t.path, agent, attempt: a });
  io.err(`taskwright: ${targets.length} task(s) × ${attempts} attempt(s) with ${agent.spec}${timeoutPolicy !== 'fail' ? ` (timeout policy ${timeoutPolicy})` : ''}; results in ${path.relative(io.cwd, store.dir) || store.dir}`);
  return { store, agent, jobs, retries, ...(checkpoint ? { checkpoint } : {}), timeoutPolicy, maxInfraRate, concurrency };
}

async function resumedRun(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string, concurrency: number | undefined): Promise<RunSetup | undefined> {
  const prepared = await prepareResume(args, io, runtime, resultsDir, () => prepareEngine(runtime, io, resultsDir));
  if (!prepared) return undefined;
  const { session, agent, jobs } = prepared;
  const { params, plan } = session;
  const rel = path.relative(io.cwd, session.store.dir) || session.store.dir;
  const tidy = [
    session.removedContainers ? `removed ${session.removedContainers} container(s) it left` : '',
    session.removedImages ? `removed ${session.removedImages} verifier-ready snapshot image(s) it left` : '',
    session.repairedBytes ? `cut a torn last line (${session.repairedBytes} bytes) off its ledger` : '',
    session.recovered ? `recorded ${session.recovered} verdict(s) it wrote to trial folders only` : '',
  ].filter(Boolean);
  if (tidy.length) io.err(`taskwright: resuming ${params.id}: ${tidy.join('; ')}`);
  if (prepared.changed.length) io.err(`taskwright: resuming ${params.id} although ${prepared.changed.length} task(s) changed since it started (${prepared.changed.join(', ')}); recorded in run.json`);
  const why = Object.entries(plan.byReason).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
  io.err(`taskwright: resuming ${params.id}: ${plan.done} of ${plan.planned} attempt(s) already have an outcome and are kept; ${plan.remaining.length} to run${why ? ` (${why})` : ''} with ${agent.spec}; results in ${rel}`);
  try {
    if (jobs.length) {
      session.store.beginResume({
        startedAt: new Date().toISOString(), pid: process.pid, remaining: jobs.length,
        ...(prepared.changed.length ? { changedTasks: prepared.changed } : {}),
      }, prepared.changed.length ? prepared.changedDigests : undefined);
    }
  } catch (e) {
    session.release();
    throw e;
  }
  return {
    store: session.store, agent, jobs, retries: params.retries, ...(params.checkpoint ? { checkpoint: params.checkpoint } : {}),
    timeoutPolicy: params.timeoutPolicy ?? DEFAULT_TIMEOUT_POLICY, maxInfraRate: params.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE, resume: session,
    // The run's own concurrency unless this invocation asks for another (it changes no trial's outcome).
    concurrency: concurrency ?? params.concurrency,
  };
}

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'Run an agent on tasks, each attempt in a fresh container, and record the trials',
  usage: [
    'taskwright run PATH... --agent SPEC [--attempts N] [--concurrency C] [--retries R] [--timeout-policy fail|verifier]',
    '               [--max-infra-rate R] [--json] [--checkpoint LABEL] [--results DIR] [--verbose]',
    'taskwright run --resume RUN [--allow-changed-tasks] [--concurrency C] [--results DIR] [--json] [--verbose]   (C defaults to the run\'s)',
    '',
    '  --agent SPEC      oracle | nop (policy agents: see the README)',
    '  --attempts N      attempts per task (default 1)',
    '  --concurrency C   trials at once (default 2; per engine with --engine)',
    '  --engine URL      a Docker engine (unix://, tcp://, ssh://; ?slots=N); repeat for a pool',
    ...BACKEND_USAGE,
    '  --retries R       extra tries after an infrastructure error (default 2; recorded, never failures)',
    '  --timeout-policy  fail: an agent timeout is a failed attempt (default); verifier: the agent\'s commands are',
    '                    stopped at its timeout and the verifier\'s verdict on what it left stands',
    `  --max-infra-rate  share of attempts that may end in infrastructure errors before the exit status is 1 (default ${DEFAULT_MAX_INFRA_RATE})`,
    '  --resume RUN      a run folder or run id: run only its attempts that are missing, cancelled or ended in',
    '                    infrastructure errors, with its own options (run.json); a differing option is an error',
    '  --allow-changed-tasks  resume although tasks were edited since the run started (refused otherwise: old and',
    '                    new attempts would count as one task\'s); recorded in run.json',
    '  --checkpoint L    label the trials with a training checkpoint',
    '  --results DIR     results store (default .taskwright/runs)',
    '  --json            print the trial records as JSON',
    '',
    'Exit status: 0 when the run completed and no more than --max-infra-rate of its attempts were lost to',
    'infrastructure errors, 1 when more were, when the engine is unreachable, the model server refused the key or',
    'model, or the run had to stop (full disk, frozen engine), 2 on usage errors or a run that cannot be resumed,',
    '130 when interrupted.',
  ].join('\n'),
  options: {
    agent: { type: 'string' }, attempts: { type: 'string' }, concurrency: { type: 'string' }, retries: { type: 'string' },
    json: { type: 'boolean' }, engine: { type: 'string', multiple: true }, ...BACKEND_OPTIONS, checkpoint: { type: 'string' }, results: { type: 'string' }, verbose: { type: 'boolean' },
    'timeout-policy': { type: 'string' }, 'max-infra-rate': { type: 'string' }, resume: { type: 'string' },
    'allow-changed-tasks': { type: 'boolean' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const resultsDir = resultsDirOf(args, io);
    // Checked first: nothing is taken over for a resume whose flags are wrong.
    const concurrency = stringOpt(args, 'concurrency') !== undefined ? intOpt(args, 'concurrency', 2) : undefined;
    const engines = enginesOf(args, io, concurrency ?? 2);
    const { runtime } = engines;
    let setup: RunSetup | undefined;
    try {
      setup = stringOpt(args, 'resume') !== undefined ? await resumedRun(args, io, runtime, resultsDir, concurrency) : await freshRun(args, io, runtime, resultsDir, concurrency ?? 2);
    } catch (e) {
      if (!(e instanceof ResumeError)) throw e;
      io.err(`taskwright run: ${e.message}`);
      return 2;
    }
    if (!setup) return 1;
    try {
      return await execute(setup, engines, args, io);
    } finally {
      setup.resume?.release();
    }
  },
};

async function execute(setup: RunSetup, engines: Engines, args: ParsedArgs, io: CliIo): Promise<number> {
  const { store, jobs } = setup;
  const { runtime } = engines;
  const rel = path.relative(io.cwd, store.dir) || store.dir;
  const runner = new TrialRunner({ runtime }, store);
  const json = boolOpt(args, 'json');
  const results = jobs.length ? await runner.runAll(jobs, {
    // A pool's budget is the sum of its engines' slots.
    concurrency: engines.pool ? engines.concurrency : setup.concurrency, retries: setup.retries, signal: io.signal, timeoutPolicy: setup.timeoutPolicy, ...(setup.checkpoint ? { checkpoint: setup.checkpoint } : {}),
    onOutput: boolOpt(args, 'verbose') ? liveEcho(io) : undefined,
    onTrial: (r) => { if (!json) io.err(formatRecord(r.record)); },
  }) : [];
  await finishEngines(engines, io);
  const records = results.flat().map((r) => r.record);
  // The run's numbers are its whole ledger: a resumed run is judged on every attempt, old and new.
  const ledger = setup.resume ? readTrialsFile(path.join(store.dir, TRIALS_FILE)).trials : records;
  const counts = countOutcomes(ledger);
  try {
    store.finish(counts);
  } catch (e) {
    if (!isDiskFull(e)) throw e;
    runner.stop(`the disk is full: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (runner.stopped !== undefined) {
    io.err(`taskwright: the run stopped: ${runner.stopped}. Containers removed; the trials recorded before it are kept in ${rel}.`);
    return 1;
  }
  const infra = infraRate(ledger.filter((r) => r.agent === setup.agent.spec), setup.maxInfraRate);
  const summary = (c: Readonly<Record<string, number>>): string => Object.entries(c).map(([k, v]) => `${v} ${k}`).join(', ') || 'no trials';
  if (json) io.out(JSON.stringify({ version: 1, results: rel, ...(setup.resume ? { resumed: true } : {}), trials: records, infra }, null, 2));
  else if (setup.resume) io.out(`this resume: ${summary(countOutcomes(records))}; the whole run: ${summary(counts)} — results in ${rel}`);
  else io.out(`${summary(counts)} — results in ${rel}`);
  if (io.signal.aborted) {
    io.err(`taskwright: interrupted; containers removed, finished trials kept in the results store (\`taskwright run --resume ${store.id}\` runs the rest)`);
    return 130;
  }
  const line = describeInfraRate(infra);
  if (line) io.err(`taskwright: ${line}`);
  return infra.exceeded ? 1 : 0;
}
