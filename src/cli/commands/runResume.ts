import path from 'node:path';
import type { Agent } from '../../core/agents/agent';
import { AgentSpecError, createAgent } from '../../core/agents/factory';
import { DEFAULT_MAX_INFRA_RATE } from '../../core/results/infraRate';
import { DEFAULT_TIMEOUT_POLICY } from '../../core/results/timeoutPolicy';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import { loadRunTasks, openForResume, resolveRunDir, resumableParameters, resumeJobs, type ResumeSession } from '../../core/sandbox/resume';
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
  readonly session: ResumeSession;
  readonly agent: Agent;
  readonly jobs: readonly TrialJob[];
  /** Tasks edited since the run started, resumed because of `--allow-changed-tasks`, and their digests now. */
  readonly changed: readonly string[];
  readonly changedDigests: Readonly<Record<string, string>>;
}

const SEMANTIC_FLAGS: readonly { readonly flag: string; readonly of: (p: ResumeSession['params']) => string | undefined }[] = [
  { flag: 'agent', of: (p) => p.agent },
  { flag: 'attempts', of: (p) => (p.attempts === undefined ? undefined : String(p.attempts)) },
  { flag: 'checkpoint', of: (p) => p.checkpoint ?? '' },
  { flag: 'retries', of: (p) => String(p.retries) },
  { flag: 'timeout-policy', of: (p) => p.timeoutPolicy ?? DEFAULT_TIMEOUT_POLICY },
  { flag: 'max-infra-rate', of: (p) => String(p.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE) },
];

function same(flag: string, given: string, recorded: string | undefined): boolean {
  if (recorded === undefined) return false;
  // Numbers compare by value: `--attempts 02` or `--max-infra-rate 0.050` say the same as run.json.
  if (flag === 'attempts' || flag === 'retries' || flag === 'max-infra-rate') return Number(given) === Number(recorded);
  return given === recorded;
}

/** Refuses flags that contradict the run; the message names each one, with both values. */
async function checkConflicts(args: ParsedArgs, io: CliIo, params: ResumeSession['params']): Promise<void> {
  const clashes: string[] = [];
  for (const { flag, of } of SEMANTIC_FLAGS) {
    const given = stringOpt(args, flag);
    if (given !== undefined && !same(flag, given, of(params))) clashes.push(`--${flag} ${given} (the run has ${of(params) || 'none'})`);
  }
  if (args.positionals.length) {
    const given = (await resolveTargets(args.positionals, io)).map((t) => path.resolve(io.cwd, t.path)).sort();
    const base = params.cwd ?? io.cwd;
    const recorded = params.tasks.map((t) => path.resolve(base, t)).sort();
    if (given.join('\n') !== recorded.join('\n')) clashes.push(`the task paths (the run has ${params.tasks.length} task(s): ${params.tasks.slice(0, 3).join(', ')}${params.tasks.length > 3 ? ', …' : ''})`);
  }
  if (clashes.length) {
    throw new UsageError(`--resume ${params.id}: a resumed run keeps its own options, and these differ from its run.json: ${clashes.join('; ')}. Drop them, or start a new run.`);
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
  let session: ResumeSession | undefined;
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
