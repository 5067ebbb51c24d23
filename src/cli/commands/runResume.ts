import path from 'node:path';
import type { Agent } from '../../core/agents/agent';
import { AgentSpecError, createAgent } from '../../core/agents/factory';
import { DEFAULT_MAX_INFRA_RATE } from '../../core/results/infraRate';
import { DEFAULT_TIMEOUT_POLICY } from '../../core/results/timeoutPolicy';
import type { RunParameters } from '../../core/results/store';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import { loadRunTasks, openForResume, resolveRunDir, resumableParameters, resumeJobs, type RunResumeSession } from '../../core/sandbox/resume';
import type { TrialJob } from '../../core/sandbox/runner';
import { boolOpt, stringOpt, UsageError, type CliIo, type ParsedArgs } from '../command';
import { resolveTargets } from './validate';

/**
 * `taskwright run --resume RUN`: the run's own options come from its run.json. A flag that would
 * change what the run measures (agent, attempts, checkpoint, retries, timeout policy, infra
 * threshold, tasks) and differs from it is refused, not silently applied to half the attempts;
 * `--concurrency`, `--json` and `--verbose` change only how this invocation runs and may differ.
 */
export interface ResumedRun {
  readonly session: RunResumeSession;
  readonly agent: Agent;
  readonly jobs: readonly TrialJob[];
  /** Tasks edited since the run started, resumed because of `--allow-changed-tasks`, and their digests now. */
  readonly changed: readonly string[];
  readonly changedDigests: Readonly<Record<string, string>>;
}

/** A flag that changes what a run measures, and its value in run.json. */
export interface SemanticFlag {
  readonly flag: string;
  readonly of: (p: RunParameters) => string | undefined;
  /** Compared by value: `--attempts 02` or `--max-infra-rate 0.050` say the same as run.json. */
  readonly numeric?: boolean;
  /** A switch (`--no-probes`): given means `true`. */
  readonly switch?: boolean;
}

const RUN_FLAGS: readonly SemanticFlag[] = [
  { flag: 'agent', of: (p) => p.agent },
  { flag: 'attempts', of: (p) => (p.attempts === undefined ? undefined : String(p.attempts)), numeric: true },
  { flag: 'checkpoint', of: (p) => p.checkpoint ?? '' },
  { flag: 'retries', of: (p) => String(p.retries), numeric: true },
  { flag: 'timeout-policy', of: (p) => p.timeoutPolicy ?? DEFAULT_TIMEOUT_POLICY },
  { flag: 'max-infra-rate', of: (p) => String(p.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE), numeric: true },
];

function same(f: SemanticFlag, given: string, recorded: string | undefined): boolean {
  if (recorded === undefined) return false;
  return f.numeric ? Number(given) === Number(recorded) : given === recorded;
}

/** Refuses flags that contradict the run; the message names each one, with both values. */
export async function checkConflicts(args: ParsedArgs, io: CliIo, params: RunParameters, flags: readonly SemanticFlag[] = RUN_FLAGS): Promise<void> {
  const clashes: string[] = [];
  for (const f of flags) {
    const given = f.switch ? (boolOpt(args, f.flag) ? 'true' : undefined) : stringOpt(args, f.flag);
    if (given !== undefined && !same(f, given, f.of(params))) clashes.push(`--${f.flag}${f.switch ? '' : ` ${given}`} (the run has ${f.switch ? `${f.flag} ${f.of(params)}` : f.of(params) || 'none'})`);
  }
  if (args.positionals.length) {
    const given = (await resolveTargets(args.positionals, io)).map((t) => path.resolve(io.cwd, t.path)).sort();
    const base = params.cwd ?? io.cwd;
    const recorded = params.tasks.map((t) => path.resolve(base, t)).sort();
    if (given.join('\n') !== recorded.join('\n')) clashes.push(`the task paths (the run has ${params.tasks.length} task(s): ${params.tasks.slice(0, 3).join(', ')}${params.tasks.length > 3 ? ', …' : ''})`);
  }
  if (clashes.length) {
    throw new UsageError(`--resume ${params.id}: a resumed ${params.kind === 'validate' ? 'validation' : 'run'} keeps its own options, and these differ from its run.json: ${clashes.join('; ')}. Drop them, or start a new one.`);
  }
}

/** Throws ResumeError when the run cannot be resumed (gone, still running, not a run), UsageError on conflicts. */
export async function prepareResume(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string, engineReady: () => Promise<boolean>): Promise<ResumedRun | undefined> {
  const dir = resolveRunDir(stringOpt(args, 'resume') as string, resultsDir, io.cwd);
  const params = resumableParameters(dir);
  // Checked before anything is touched: a refused resume leaves the run folder as it was.
  await checkConflicts(args, io, params);
  const { tasks, changed, changedDigests } = await loadRunTasks(params, io.cwd, boolOpt(args, 'allow-changed-tasks'));
  if (!(await engineReady())) return undefined;
  let session: RunResumeSession | undefined;
  try {
    session = await openForResume(runtime, dir);
    let agent: Agent;
    try {
      agent = createAgent(params.agent as string);
    } catch (e) {
      if (e instanceof AgentSpecError) throw new UsageError(`--resume ${params.id}: its agent ${params.agent}: ${e.message}`);
      throw e;
    }
    const jobs = resumeJobs(session.plan, tasks, agent);
    return { session, agent, jobs, changed, changedDigests };
  } catch (e) {
    session?.release();
    throw e;
  }
}
