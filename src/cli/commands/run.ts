import path from 'node:path';
import { AgentSpecError, createAgent } from '../../core/agents/factory';
import { isDiskFull } from '../../core/results/diskFull';
import { newRunId, RunStore } from '../../core/results/store';
import type { TrialRecord } from '../../core/results/trial';
import { enginesOf, finishEngines } from '../engines';
import { countOutcomes, TrialRunner, type TrialJob } from '../../core/sandbox/runner';
import { boolOpt, intOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { prepareEngine, resolveTargets, resultsDirOf } from './validate';

function formatRecord(r: TrialRecord): string {
  const reward = r.reward === null ? '-' : String(r.reward);
  const d = r.durations;
  const t = [d.agent, d.verifier].map((x) => (x === null ? '-' : `${x.toFixed(1)}s`)).join('/');
  const infra = r.infra ? `  ${r.infra.kind}: ${r.infra.message}` : '';
  return `  ${r.outcome.padEnd(16)} reward ${reward.padEnd(4)} ${t.padEnd(12)} ${r.taskId ?? r.task} #${r.attempt}${r.try && r.try > 1 ? ` (try ${r.try})` : ''}${infra}`;
}

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'Run an agent on tasks, each attempt in a fresh container, and record the trials',
  usage: [
    'taskwright run PATH... --agent SPEC [--attempts N] [--concurrency C] [--retries R] [--json] [--checkpoint LABEL] [--results DIR] [--verbose]',
    '',
    '  --agent SPEC      oracle | nop (policy agents: see the README)',
    '  --attempts N      attempts per task (default 1)',
    '  --concurrency C   trials at once (default 2; per engine with --engine)',
    '  --engine URL      a Docker engine (unix://, tcp://, ssh://; ?slots=N); repeat for a pool',
    '  --retries R       extra tries after an infrastructure error (default 2; recorded, never failures)',
    '  --checkpoint L    label the trials with a training checkpoint',
    '  --results DIR     results store (default .taskwright/runs)',
    '  --json            print the trial records as JSON',
    '',
    'Exit status: 0 when the run completed with no infrastructure error, 1 when the engine is unreachable, a',
    'trial hit an infrastructure error, the model server refused the key or model, or the run had to stop',
    '(full disk, frozen engine), 2 on usage errors, 130 when interrupted.',
  ].join('\n'),
  options: {
    agent: { type: 'string' }, attempts: { type: 'string' }, concurrency: { type: 'string' }, retries: { type: 'string' },
    json: { type: 'boolean' }, engine: { type: 'string', multiple: true }, checkpoint: { type: 'string' }, results: { type: 'string' }, verbose: { type: 'boolean' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    if (!args.positionals.length) throw new UsageError('give at least one task folder or folder of tasks');
    const spec = stringOpt(args, 'agent');
    if (!spec) throw new UsageError('--agent is required (oracle or nop)');
    let agent;
    try {
      agent = createAgent(spec);
    } catch (e) {
      if (e instanceof AgentSpecError) throw new UsageError(e.message);
      throw e;
    }
    const attempts = intOpt(args, 'attempts', 1);
    const concurrency = intOpt(args, 'concurrency', 2);
    const retries = intOpt(args, 'retries', 2, 0);
    const checkpoint = stringOpt(args, 'checkpoint');
    const resultsDir = resultsDirOf(args, io);
    const targets = await resolveTargets(args.positionals, io);
    const engines = enginesOf(args, io, concurrency);
    const { runtime } = engines;
    if (!(await prepareEngine(runtime, io, resultsDir))) return 1;
    const store = RunStore.create(resultsDir, {
      id: newRunId(agent.spec.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 24)), kind: 'run', agent: agent.spec,
      ...(agent.model ? { model: agent.model } : {}), ...(checkpoint ? { checkpoint } : {}),
      tasks: targets.map((t) => t.path), attempts, concurrency, retries,
      startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
    });
    const rel = path.relative(io.cwd, store.dir) || store.dir;
    io.err(`taskwright: ${targets.length} task(s) × ${attempts} attempt(s) with ${agent.spec}; results in ${rel}`);
    const runner = new TrialRunner({ runtime }, store);
    const jobs: TrialJob[] = [];
    for (let a = 1; a <= attempts; a++) for (const t of targets) jobs.push({ task: t.task, taskPath: t.path, agent, attempt: a });
    const json = boolOpt(args, 'json');
    const results = await runner.runAll(jobs, {
      concurrency: engines.concurrency, retries, signal: io.signal, ...(checkpoint ? { checkpoint } : {}),
      onOutput: boolOpt(args, 'verbose') ? (t) => io.err(t.replace(/\n$/, '')) : undefined,
      onTrial: (r) => { if (!json) io.err(formatRecord(r.record)); },
    });
    await finishEngines(engines, io);
    const records = results.flat().map((r) => r.record);
    const counts = countOutcomes(records);
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
    if (json) io.out(JSON.stringify({ version: 1, results: rel, trials: records }, null, 2));
    else io.out(`${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ') || 'no trials'} — results in ${rel}`);
    if (io.signal.aborted) {
      io.err('taskwright: interrupted; containers removed, finished trials kept in the results store');
      return 130;
    }
    const infra = counts['infra-error'] ?? 0;
    // Until a tolerated infra rate exists, any infra error says the run's numbers are incomplete.
    if (infra) {
      io.err(`taskwright: ${infra} trial(s) ended in infrastructure errors (not counted as attempts); exit status 1`);
      return 1;
    }
    return 0;
  },
};
