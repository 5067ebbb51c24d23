import path from 'node:path';
import { AgentSpecError, createAgent } from '../../core/agents/factory';
import { credentialsFrom, envSecrets, MISSING_KEY } from '../../core/llm/client';
import { ModelRequestError } from '../../core/llm/faults';
import { connect } from '../../core/llm/index';
import { loadPriceOverrides } from '../prices';
import { defaultResultsDir } from '../../core/results/store';
import { DockerodeRuntime } from '../../core/sandbox/dockerRuntime';
import { dockerGates } from '../../core/generate/gates';
import { MetaAgent } from '../../core/generate/metaAgent';
import { generateTasks } from '../../core/generate/pipeline';
import { renderReportText } from '../../core/generate/report';
import { DEFAULT_GEN_DIFFICULTY, GEN_DIFFICULTIES, type GenDifficulty, type ProgressEvent } from '../../core/generate/types';
import type { TaskFormat } from '../../core/model/task';
import { boolOpt, choiceOpt, intOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { liveEcho } from '../liveOutput';
import { prepareEngine } from './validate';

/** Prints stage changes, and streamed tokens every thousand, so a long generation shows it is alive. */
function progressPrinter(io: CliIo): (e: ProgressEvent) => void {
  let lastStage = '';
  let lastTokens = 0;
  return (e) => {
    const key = `${e.slot}/${e.round}/${e.stage}`;
    if (e.tokens !== undefined && key === lastStage) {
      if (e.tokens - lastTokens < 1000) return;
      lastTokens = e.tokens;
    } else {
      lastStage = key;
      lastTokens = e.tokens ?? 0;
    }
    io.err(`[${e.stage}] ${e.message}`);
  };
}

export const generateCommand: CliCommand = {
  name: 'generate',
  summary: 'Generate tasks with Claude; keep only those that pass the audit, the build and validation',
  usage: [
    'taskwright generate --topic TEXT --count N --out DIR [--format harbor|tb1] [--model M] [--rounds K]',
    '                    [--difficulty easy|medium|hard] [--batch] [--format-report text|json] [--base-url URL]',
    '                    [--calibrate AGENT] [--runs N] [--results DIR] [--verbose]',
    '',
    '  --topic TEXT       what the tasks are about (a domain, a skill, a tool)',
    '  --count N          tasks to generate',
    '  --out DIR          accepted tasks land here; drafts stay in DIR/.taskwright/generate/',
    '  --format           harbor (default) or tb1',
    '  --model M          Anthropic model (default: $TASKWRIGHT_MODEL, else the newest active Sonnet',
    '                     listed by GET /v1/models — then Opus, Fable, Haiku)',
    '  --rounds K         generation rounds per task, repairs included (default 3)',
    '  --difficulty       easy | medium (default) | hard',
    '  --batch            first round through the Message Batches API (half price, may take hours)',
    '  --format-report    text (default) or json',
    '  --base-url URL     API base URL (default $ANTHROPIC_BASE_URL or the public API)',
    '  --calibrate AGENT  keep only tasks in band for this policy (pass@2), e.g. anthropic:claude-haiku-4-5',
    '  --runs N           nop and oracle runs per validation (default 2)',
    '',
    'Key: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) from the environment; never written anywhere.',
    'TASKWRIGHT_ANTHROPIC_AUTH_HEADER=x-api-key sends the key as x-api-key (default: Authorization: Bearer).',
    'TASKWRIGHT_PRICES: a JSON object (or a file holding one) of model → {input, output, cacheWrite, cacheRead, batch}.',
    'Exit status: 0 when every requested task was accepted, 1 otherwise, 2 on usage errors, 130 when interrupted.',
  ].join('\n'),
  options: {
    topic: { type: 'string' }, count: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' }, model: { type: 'string' },
    rounds: { type: 'string' }, difficulty: { type: 'string' }, batch: { type: 'boolean' }, 'format-report': { type: 'string' },
    'base-url': { type: 'string' }, calibrate: { type: 'string' }, runs: { type: 'string' }, results: { type: 'string' }, verbose: { type: 'boolean' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const topic = stringOpt(args, 'topic')?.trim();
    if (!topic) throw new UsageError('--topic is required');
    const out = stringOpt(args, 'out');
    if (!out) throw new UsageError('--out is required');
    if (args.positionals.length) throw new UsageError(`unexpected argument '${args.positionals[0] ?? ''}'`);
    const count = intOpt(args, 'count', 1);
    const rounds = intOpt(args, 'rounds', 3);
    const runs = intOpt(args, 'runs', 2);
    const format = choiceOpt<TaskFormat>(args, 'format', ['harbor', 'tb1'], 'harbor');
    const difficulty = choiceOpt<GenDifficulty>(args, 'difficulty', GEN_DIFFICULTIES, DEFAULT_GEN_DIFFICULTY);
    const reportFormat = choiceOpt(args, 'format-report', ['text', 'json'] as const, 'text');
    const calibrateSpec = stringOpt(args, 'calibrate');
    let policy;
    if (calibrateSpec) {
      try { policy = createAgent(calibrateSpec); } catch (e) {
        if (e instanceof AgentSpecError) throw new UsageError(e.message);
        throw e;
      }
    }
    const base = stringOpt(args, 'base-url');
    const credentials = credentialsFrom(envSecrets(io.env), io.env, base ? { baseURL: base } : {});
    if (!credentials.apiKey && !credentials.authToken) throw new UsageError(MISSING_KEY);
    const prices = loadPriceOverrides(io);
    const asked = stringOpt(args, 'model') ?? (io.env.TASKWRIGHT_MODEL || undefined);
    let agent: MetaAgent;
    try {
      const { caller } = await connect({
        credentials, ...(asked ? { model: asked, modelSource: stringOpt(args, 'model') ? '--model' : 'TASKWRIGHT_MODEL' } : {}),
        prices, onNotice: (line) => io.err(`[model] ${line}`), signal: io.signal,
      });
      agent = new MetaAgent({ caller, format, ...(io.env.TASKWRIGHT_BATCH_POLL_MS ? { pollMs: Number(io.env.TASKWRIGHT_BATCH_POLL_MS) } : {}) });
    } catch (e) {
      // One message for the whole run: a model that does not exist or a refused key fails every task alike.
      if (e instanceof ModelRequestError) {
        io.err(`taskwright generate: ${e.message}`);
        return e.fault.kind === 'model-not-found' ? 2 : 1;
      }
      throw e;
    }
    const model = agent.model;
    const outDir = path.resolve(io.cwd, out);
    const runtime = new DockerodeRuntime();
    if (!(await prepareEngine(runtime, io))) return 1;
    const resultsDir = stringOpt(args, 'results') ? path.resolve(io.cwd, stringOpt(args, 'results') as string) : defaultResultsDir(io.cwd);
    const verbose = boolOpt(args, 'verbose');
    const report = await generateTasks(
      { topic, count, format, difficulty, outDir, model, rounds, batch: boolOpt(args, 'batch'), ...(calibrateSpec ? { calibrate: calibrateSpec } : {}) },
      {
        agent,
        gates: dockerGates({ runtime, resultsDir, runs, ...(policy ? { policy } : {}), ...(verbose ? { onOutput: liveEcho(io) } : {}) }),
        signal: io.signal,
        onProgress: progressPrinter(io),
        relativeTo: io.cwd,
      },
    );
    io.out(reportFormat === 'json' ? JSON.stringify(report, null, 2) : renderReportText(report));
    if (io.signal.aborted) {
      io.err('taskwright: interrupted; the cancelled task left nothing in the output folder');
      return 130;
    }
    return report.counts.accepted === count ? 0 : 1;
  },
};
