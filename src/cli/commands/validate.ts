import fs from 'node:fs';
import path from 'node:path';
import { findingToJson, type FindingJson } from '../../core/report/findingJson';
import { DEFAULT_MAX_INFRA_RATE, describeInfraRate, infraRate, jobKey } from '../../core/results/infraRate';
import { defaultResultsDir, newRunId, RunStore } from '../../core/results/store';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import { BACKEND_OPTIONS, BACKEND_USAGE, enginesOf, finishEngines } from '../engines';
import { writeValidations } from '../../core/results/validations';
import { reapOrphans } from '../../core/sandbox/reaper';
import { recoverDeadRuns } from '../../core/sandbox/runner';
import { InfraError } from '../../core/sandbox/runtime';
import type { CheckResult, MutationSummary, ProbeResult, TaskValidation, ValidationVerdict } from '../../core/validate/types';
import { DEFAULT_MUTANTS, validateTasks, type ValidateTarget } from '../../core/validate/validate';
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
    '  --verbose      stream build and trial output to stderr',
    `  --max-infra-rate R  share of trials that may end in infrastructure errors after retries (default ${DEFAULT_MAX_INFRA_RATE})`,
    '',
    'Checks: build, nop (reward 0), oracle (reward 1), agreement (flip rate, Wilson interval), reward-isolation,',
    'timeout-margin, mutants, environment (TZ, locale, COLUMNS, http_proxy, half a CPU), test-order, stale-state.',
    'Exit status: 0 when every task is valid and no more than --max-infra-rate of the trials were lost to',
    'infrastructure errors, 1 otherwise (a task whose build or engine failed is never valid), 2 on usage',
    'errors, 130 when interrupted.',
  ].join('\n'),
  options: {
    runs: { type: 'string' }, concurrency: { type: 'string' }, format: { type: 'string' }, retries: { type: 'string' },
    results: { type: 'string' }, engine: { type: 'string', multiple: true }, ...BACKEND_OPTIONS, 'no-probes': { type: 'boolean' }, verbose: { type: 'boolean' },
    mutants: { type: 'string' }, 'no-behaviour': { type: 'boolean' }, seed: { type: 'string' }, 'max-infra-rate': { type: 'string' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    if (!args.positionals.length) throw new UsageError('give at least one task folder or folder of tasks');
    const runs = intOpt(args, 'runs', 3);
    const concurrency = intOpt(args, 'concurrency', 2);
    const retries = intOpt(args, 'retries', 2, 0);
    const resultsDir = resultsDirOf(args, io);
    const format = choiceOpt(args, 'format', ['text', 'json'] as const, 'text');
    const verbose = boolOpt(args, 'verbose');
    const mutants = intOpt(args, 'mutants', DEFAULT_MUTANTS, 0);
    const seed = intOpt(args, 'seed', 20240601, 0);
    const maxInfraRate = rateOpt(args, 'max-infra-rate', DEFAULT_MAX_INFRA_RATE);
    const targets = await resolveTargets(args.positionals, io);
    const engines = enginesOf(args, io, concurrency);
    const { runtime } = engines;
    if (!(await prepareEngine(runtime, io, resultsDir))) return 1;
    const store = RunStore.create(resultsDir, {
      id: newRunId('validate'), kind: 'validate', tasks: targets.map((t) => t.path), attempts: runs, concurrency, retries, maxInfraRate, cwd: io.cwd,
      startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
    });
    io.err(`taskwright: validating ${targets.length} task(s), ${runs} run(s) each; results in ${path.relative(io.cwd, store.dir) || store.dir}`);
    let lastProgress = '';
    const results = await validateTasks(runtime, store, targets, {
      runs, concurrency: engines.concurrency, retries, probes: !boolOpt(args, 'no-probes'), mutants, behaviour: !boolOpt(args, 'no-behaviour'), seed, signal: io.signal,
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
      io.err('taskwright: interrupted; containers removed, finished trials kept in the results store');
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
  },
};
