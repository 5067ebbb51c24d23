import fs from 'node:fs';
import path from 'node:path';
import { findingToJson, type FindingJson } from '../../core/report/findingJson';
import { DEFAULT_MAX_INFRA_RATE, describeInfraRate, infraRate, jobKey } from '../../core/results/infraRate';
import { defaultResultsDir, newRunId, RunStore } from '../../core/results/store';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import type { Engines } from '../../core/sandbox/connect';
import { BACKEND_OPTIONS, BACKEND_USAGE, enginesOf, finishEngines } from '../engines';
import { writeValidations } from '../../core/results/validations';
import { reapOrphans } from '../../core/sandbox/reaper';
import { recoverDeadRuns } from '../../core/sandbox/runner';
import { InfraError } from '../../core/sandbox/runtime';
import type { CheckResult, MutationSummary, ProbeResult, TaskValidation, ValidationVerdict } from '../../core/validate/types';
import { DEFAULT_MUTANTS, validateTasks, type ValidateOptions, type ValidateTarget } from '../../core/validate/validate';
import { DEFAULT_SEED, validateSettings } from '../../core/validate/resume';
import { ResumeError } from '../../core/sandbox/resume';
import { taskDigests } from '../../core/results/taskDigest';
import { prepareValidateResume } from './validateResume';
import { boolOpt, choiceOpt, intOpt, rateOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { liveEcho } from '../liveOutput';
import { loadTargets } from '../targets';

/** `taskwright validate --format json`. */
export interface ValidateJson {
  readonly version: 1;
  readonly results: string;
  readonly tasks: readonly {
    readonly path: string;
    readonly id: string;
    readonly verdict: ValidationVerdict;
    readonly checks: readonly CheckResult[];
    readonly findings: readonly FindingJson[];
    /** Output mutants from the solved snapshot: killed of total, and what survived (absent when none ran). */
    readonly mutants?: MutationSummary;
    /** Each cheat probe that ran and the reward it got. */
    readonly probes?: readonly ProbeResult[];
    /** Flip rate of identical oracle and nop runs with its 95% Wilson interval. */
    readonly flake?: TaskValidation['flake'];
  }[];
}

/** Tasks under the given paths, each labelled with its path as given (or relative to the cwd). */
export async function resolveTargets(given: readonly string[], io: CliIo): Promise<ValidateTarget[]> {
  return loadTargets(given, io, { requireTasks: true });
}

/** The results folder (`--results`); one that names a file is a usage error, not a crash later. */
export function resultsDirOf(args: ParsedArgs, io: CliIo): string {
  const d = stringOpt(args, 'results');
  const dir = d ? path.resolve(io.cwd, d) : defaultResultsDir(io.cwd);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined;
  }
  if (st && !st.isDirectory()) throw new UsageError(`--results ${d ?? dir}: is a file, not a folder`);
  return dir;
}

/** Checks the engine and reaps orphans of killed runs; prints a clear message when the engine is missing. */
export async function prepareEngine(runtime: ContainerRuntime, io: CliIo, resultsDir?: string): Promise<boolean> {
  try {
    await runtime.ping(io.signal);
    const r = await reapOrphans(runtime);
    if (r.removed.length) io.err(`taskwright: removed ${r.removed.length} container(s) left by a killed run`);
    const recovered = resultsDir ? recoverDeadRuns(resultsDir) : 0;
    if (recovered) io.err(`taskwright: recovered ${recovered} verdict(s) a killed run wrote to its trial folders but not to trials.jsonl`);
    return true;
  } catch (e) {
    io.err(`taskwright: ${e instanceof InfraError ? e.message : String(e)}`);
    return false;
  }
}

/** What a validation runs, fresh or resumed. */
interface ValidateSetup {
  readonly store: RunStore;
  readonly targets: readonly ValidateTarget[];
  readonly options: Omit<ValidateOptions, 'concurrency'>;
  readonly maxInfraRate: number;
  readonly release?: () => void;
}

async function freshValidation(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string, concurrency: number): Promise<ValidateSetup | undefined> {
  if (!args.positionals.length) throw new UsageError('give at least one task folder or folder of tasks (or --resume RUN)');
  const runs = intOpt(args, 'runs', 3);
  const retries = intOpt(args, 'retries', 2, 0);
  const settings = validateSettings({ probes: !boolOpt(args, 'no-probes'), mutants: intOpt(args, 'mutants', DEFAULT_MUTANTS, 0), behaviour: !boolOpt(args, 'no-behaviour'), seed: intOpt(args, 'seed', DEFAULT_SEED, 0) });
  const maxInfraRate = rateOpt(args, 'max-infra-rate', DEFAULT_MAX_INFRA_RATE);
  const targets = await resolveTargets(args.positionals, io);
  if (!(await prepareEngine(runtime, io, resultsDir))) return undefined;
  const store = RunStore.create(resultsDir, {
    id: newRunId('validate'), kind: 'validate', tasks: targets.map((t) => t.path), attempts: runs, concurrency, retries, maxInfraRate, cwd: io.cwd,
    validate: settings, taskDigests: taskDigests(targets.map((t) => ({ path: t.path, dir: t.task.dir }))),
    startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
  });
  io.err(`taskwright: validating ${targets.length} task(s), ${runs} run(s) each; results in ${path.relative(io.cwd, store.dir) || store.dir}`);
  return { store, targets, maxInfraRate, options: { runs, retries, ...settings } };
}

async function resumedValidation(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string): Promise<ValidateSetup | undefined> {
  const r = await prepareValidateResume(args, io, runtime, resultsDir, () => prepareEngine(runtime, io, resultsDir));
  if (!r) return undefined;
  const { session } = r;
  const { params } = session;
  const tidy = [
    session.removedContainers ? `removed ${session.removedContainers} container(s) it left` : '',
    session.removedImages ? `removed ${session.removedImages} verifier-ready snapshot image(s) it left` : '',
    session.repairedBytes ? `cut a torn last line (${session.repairedBytes} bytes) off its ledger` : '',
    session.recovered ? `recorded ${session.recovered} verdict(s) it wrote to trial folders only` : '',
    r.changed.length ? `${r.changed.length} task(s) changed since it started (${r.changed.join(', ')}), resumed anyway and recorded in run.json` : '',
  ].filter(Boolean);
  if (tidy.length) io.err(`taskwright: resuming ${params.id}: ${tidy.join('; ')}`);
  io.err(`taskwright: resuming ${params.id}: ${r.targets.length} task(s); checks with a verdict in its ledger are kept, ${r.remaining} nop/oracle check(s) to run (and the snapshot checks without a verdict); results in ${path.relative(io.cwd, session.store.dir) || session.store.dir}`);
  const { maxInfraRate, ...options } = r.options;
  return { store: session.store, targets: r.targets, maxInfraRate, options, release: () => session.release() };
}

const MARK: Readonly<Record<CheckResult['status'], string>> = { pass: 'ok  ', fail: 'FAIL', error: 'ERR ', skipped: 'skip' };

export function formatValidation(v: TaskValidation): string {
  const lines = [`${v.verdict.toUpperCase().padEnd(11)} ${v.id}  (${v.path})`];
  for (const c of v.checks) lines.push(`  ${MARK[c.status]} ${c.name.padEnd(16)} ${c.detail}`);
  for (const f of v.findings) {
    const at = f.file ? `${f.file}${f.range ? `:${f.range.start.line + 1}` : ''}` : v.path;
    lines.push(`  ${f.severity}: [${f.rule}] ${at}: ${f.message}`);
  }
  return lines.join('\n');
}

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'Validate tasks in Docker: the oracle must pass, doing nothing must fail, verdicts must agree',
  usage: [
    'taskwright validate PATH... [--runs N] [--concurrency C] [--format text|json] [--retries R] [--results DIR]',
    '                   [--mutants K] [--no-probes] [--no-behaviour] [--seed S] [--max-infra-rate R] [--verbose]',
    'taskwright validate --resume RUN [--allow-changed-tasks] [--concurrency C] [--results DIR] [--format text|json] [--verbose]',
    '',
    '  PATH           a task folder, or a folder to search for tasks',
    '  --runs N       nop and oracle trials per task, each in a fresh container (default 3)',
    '  --concurrency  trials at once (default 2; per engine with --engine)',
    '  --engine URL   a Docker engine (unix://, tcp://, ssh://; ?slots=N); repeat for a pool',
    ...BACKEND_USAGE,
    '  --retries R    extra tries after an infrastructure error (default 2; never counted as failures)',
    '  --results DIR  results store (default .taskwright/runs)',
    '  --no-probes    skip the reward-isolation (cheat) probes',
    `  --mutants K    wrong outputs per output file, run from the solved snapshot (default ${DEFAULT_MUTANTS}; 0: none)`,
    '  --no-behaviour skip environment variation, test order and the verifier run twice',
    '  --seed S       seed of the random test order (default 20240601)',
    '  --resume RUN   a validation\'s folder or run id: run only its checks that are missing, cancelled or ended in',
    '                 infrastructure errors, with its own options (run.json); a check with a verdict is never redone',
    '  --allow-changed-tasks  resume although tasks were edited since the validation started (recorded in run.json)',
    '  --verbose      stream build and trial output to stderr',
    `  --max-infra-rate R  share of trials that may end in infrastructure errors after retries (default ${DEFAULT_MAX_INFRA_RATE})`,
    '',
    'Checks: build, nop (reward 0), oracle (reward 1), agreement (flip rate, Wilson interval), reward-isolation,',
    'timeout-margin, mutants, environment (TZ, locale, COLUMNS, http_proxy, half a CPU), test-order, stale-state.',
    'Exit status: 0 when every task is valid and no more than --max-infra-rate of the trials were lost to',
    'infrastructure errors, 1 otherwise (a task whose build or engine failed is never valid), 2 on usage',
    'errors or a validation that cannot be resumed, 130 when interrupted.',
  ].join('\n'),
  options: {
    runs: { type: 'string' }, concurrency: { type: 'string' }, format: { type: 'string' }, retries: { type: 'string' },
    results: { type: 'string' }, engine: { type: 'string', multiple: true }, ...BACKEND_OPTIONS, 'no-probes': { type: 'boolean' }, verbose: { type: 'boolean' },
    mutants: { type: 'string' }, 'no-behaviour': { type: 'boolean' }, seed: { type: 'string' }, 'max-infra-rate': { type: 'string' },
    resume: { type: 'string' }, 'allow-changed-tasks': { type: 'boolean' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const resultsDir = resultsDirOf(args, io);
    const format = choiceOpt(args, 'format', ['text', 'json'] as const, 'text');
    const verbose = boolOpt(args, 'verbose');
    const resuming = stringOpt(args, 'resume') !== undefined;
    const concurrency = intOpt(args, 'concurrency', 2);
    const engines = enginesOf(args, io, concurrency);
    const { runtime } = engines;
    let setup: ValidateSetup | undefined;
    try {
      setup = resuming ? await resumedValidation(args, io, runtime, resultsDir) : await freshValidation(args, io, runtime, resultsDir, concurrency);
    } catch (e) {
      if (!(e instanceof ResumeError)) throw e;
      io.err(`taskwright validate: ${e.message}`);
      return 2;
    }
    if (!setup) return 1;
    try {
      return await execute(setup, engines, format, verbose, io);
    } finally {
      setup.release?.();
    }
  },
};

async function execute(setup: ValidateSetup, engines: Engines, format: 'text' | 'json', verbose: boolean, io: CliIo): Promise<number> {
  const { runtime } = engines;
  const { store, targets, options, maxInfraRate } = setup;
  let lastProgress = '';
  const results = await validateTasks(runtime, store, targets, {
      ...options, concurrency: engines.concurrency, signal: io.signal,
      onOutput: verbose ? liveEcho(io) : undefined,
      onProgress: (msg, done, total) => {
        const line = `[${done}/${total}] ${msg}`;
        if (line !== lastProgress && format === 'text') io.err(line);
        lastProgress = line;
      },
    });
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  await finishEngines(engines, io);
  store.finish(counts);
  // The verdicts beside the trials: the editor (and any later reader) shows them without rerunning.
  if (!io.signal.aborted) writeValidations(store.dir, results);
  if (io.signal.aborted) {
    io.err(`taskwright: interrupted; containers removed, finished checks kept in the results store (\`taskwright validate --resume ${store.id}\` runs the rest)`);
    return 130;
  }
  const rel = path.relative(io.cwd, store.dir) || store.dir;
  if (format === 'json') {
    const json: ValidateJson = {
      version: 1,
      results: rel,
      tasks: results.map((r) => ({
        path: r.path, id: r.id, verdict: r.verdict, checks: r.checks, findings: r.findings.map(findingToJson),
        ...(r.mutants ? { mutants: r.mutants } : {}), ...(r.probes ? { probes: r.probes } : {}), ...(r.flake ? { flake: r.flake } : {}),
      })),
    };
    io.out(JSON.stringify(json, null, 2));
  } else {
    io.out(results.map(formatValidation).join('\n\n'));
    io.out(`\n${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')} — trials and logs in ${rel}`);
  }
  // Each validation job (nop, oracle, probe, mutant…) is one attempt; its retried tries share a job key.
  const infra = infraRate(results.flatMap((r) => r.trials), maxInfraRate, jobKey);
  const line = describeInfraRate(infra);
  if (line) io.err(`taskwright: ${line} (see the infra findings above)`);
  return results.every((r) => r.verdict === 'valid') && !infra.exceeded ? 0 : 1;
}
