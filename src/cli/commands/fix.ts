import path from 'node:path';
import { auditTask } from '../../core/audit/index';
import { findingLocation, formatFinding } from '../../core/generate/feedback';
import { dockerGates } from '../../core/generate/gates';
import { writeChanges } from '../../core/fix/changes';
import { fixFinding, type Recheck } from '../../core/fix/fix';
import { credentialsFrom, envSecrets, MISSING_KEY } from '../../core/llm/client';
import { ModelRequestError } from '../../core/llm/faults';
import { connect } from '../../core/llm/index';
import type { Finding } from '../../core/model/finding';
import { DockerodeRuntime } from '../../core/sandbox/dockerRuntime';
import { boolOpt, choiceOpt, intOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { loadPriceOverrides } from '../prices';
import { loadTargets } from '../targets';
import { prepareEngine, resultsDirOf } from './validate';

const FORMATS = ['text', 'json'] as const;

/** The finding the user named: by rule, and optionally file and 1-based line; alone when only one exists. */
export function pickFinding(findings: readonly Finding[], rule?: string, file?: string, line?: number): Finding | string {
  const matches = findings.filter((f) => (!rule || f.rule === rule) && (!file || f.file === file) && (line === undefined || (f.range && f.range.start.line + 1 <= line && line <= f.range.end.line + 1)));
  const list = (fs: readonly Finding[]): string => fs.map(formatFinding).join('\n');
  if (matches.length === 0) {
    return findings.length
      ? `no finding matches${rule ? ` --rule ${rule}` : ''}${file ? ` --file ${file}` : ''}${line !== undefined ? ` --line ${line}` : ''}; the task has:\n${list(findings)}`
      : 'the task has no finding to fix';
  }
  if (matches.length > 1 && !rule) return `the task has ${matches.length} findings: name one with --rule (and --file / --line):\n${list(matches)}`;
  return matches[0] as Finding;
}

export const fixCommand: CliCommand = {
  name: 'fix',
  summary: 'Ask Claude for the smallest change that removes a finding, checked again on a copy before it is shown or applied',
  usage: [
    'taskwright fix TASK [--rule R] [--file F] [--line N] [--validate] [--apply] [--rounds N] [--model M] [--format text|json]',
    '',
    '  --rule R      the finding to fix (needed when the task has more than one); --file and --line narrow it',
    '  --validate    also read the findings of a Docker validation, and recheck a fix of one of them by validating again',
    '  --apply       write the checked change into the task (default: print it as a unified diff)',
    '  --rounds N    rounds in all (default 3): a change that still shows the finding, or adds a new one, goes back to the model',
    '',
    'The change is rechecked on a scratch copy with the checker that reported the finding (the static audit, or validate).',
    'Exit status: 0 fixed (and applied with --apply), 1 not fixed, 2 usage errors.',
  ].join('\n'),
  options: {
    rule: { type: 'string' }, file: { type: 'string' }, line: { type: 'string' }, validate: { type: 'boolean' }, apply: { type: 'boolean' },
    rounds: { type: 'string' }, model: { type: 'string' }, format: { type: 'string' }, 'base-url': { type: 'string' }, results: { type: 'string' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const format = choiceOpt(args, 'format', FORMATS, 'text');
    const rounds = intOpt(args, 'rounds', 3, 1, 10);
    const lineOpt = stringOpt(args, 'line');
    const line = lineOpt === undefined ? undefined : Number(lineOpt);
    if (line !== undefined && !(Number.isInteger(line) && line >= 1)) throw new UsageError(`--line ${lineOpt}: a line number (1-based)`);
    if (args.positionals.length !== 1) throw new UsageError('name one task folder');
    const [target] = await loadTargets(args.positionals, io, { requireTasks: true });
    if (!target) throw new UsageError('no task found');
    const task = target.task;
    const base = stringOpt(args, 'base-url');
    const credentials = credentialsFrom(envSecrets(io.env), io.env, base ? { baseURL: base } : {});
    if (!credentials.apiKey && !credentials.authToken) throw new UsageError(MISSING_KEY);

    const audit: Recheck = (t, signal) => auditTask(t, { signal });
    let validate: Recheck | undefined;
    if (boolOpt(args, 'validate')) {
      const runtime = new DockerodeRuntime();
      const resultsDir = resultsDirOf(args, io);
      if (!(await prepareEngine(runtime, io, resultsDir))) return 1;
      const gates = dockerGates({ runtime, resultsDir, onOutput: () => undefined });
      validate = async (t, signal) => (await gates.validate(t, signal, (m) => io.err(`[validate] ${m}`))).validation.findings;
    }
    const staticFindings = await audit(task, io.signal);
    const dynamic = validate ? (await validate(task, io.signal)).map((f) => ({ ...f, source: 'validate' as const })) : [];
    const picked = pickFinding([...staticFindings, ...dynamic], stringOpt(args, 'rule'), stringOpt(args, 'file'), line);
    if (typeof picked === 'string') { io.err(`taskwright fix: ${picked}`); return picked.startsWith('the task has no finding') ? 0 : 2; }
    const recheck = picked.source === 'validate' && validate ? validate : audit;

    const asked = stringOpt(args, 'model') ?? (io.env.TASKWRIGHT_MODEL || undefined);
    let result;
    try {
      const { caller } = await connect({
        credentials, ...(asked ? { model: asked, modelSource: stringOpt(args, 'model') ? '--model' : 'TASKWRIGHT_MODEL' } : {}),
        prices: loadPriceOverrides(io), onNotice: (l) => io.err(`[model] ${l}`), signal: io.signal,
      });
      result = await fixFinding(task, picked, { caller, recheck, rounds, signal: io.signal, onProgress: (l) => io.err(`[fix] ${l}`) });
    } catch (e) {
      if (e instanceof ModelRequestError) { io.err(`taskwright fix: ${e.message}`); return e.fault.kind === 'model-not-found' ? 2 : 1; }
      throw e;
    }
    const applied = result.status === 'fixed' && boolOpt(args, 'apply');
    if (applied) writeChanges(task.dir, result.changes);
    const cost = result.costUsd === null ? 'unknown' : `$${result.costUsd.toFixed(4)}`;
    if (format === 'json') {
      io.out(JSON.stringify({
        version: 1, task: target.path, finding: { rule: picked.rule, file: picked.file ?? null, line: picked.range ? picked.range.start.line + 1 : null, source: picked.source ?? 'audit' },
        status: result.status, applied, explanation: result.explanation, files: result.changes.map((c) => c.file), diff: result.diff,
        rounds: result.rounds, failures: result.failures, tokens: result.usage, costUsd: result.costUsd,
      }, null, 2));
    } else {
      const where = path.posix.join(target.path, findingLocation(picked));
      io.out([
        `${where}  ${picked.rule}: ${result.status === 'fixed' ? `fixed in ${result.rounds} round(s)` : `not fixed after ${result.rounds} round(s)`}${applied ? ', applied' : ''}`,
        ...(result.explanation ? [`  ${result.explanation}`] : []),
        ...result.failures.map((f, i) => `  round ${i + 1}: ${f.split('\n').slice(0, 2).join(' ')}`),
        ...(result.diff ? ['', result.diff.trimEnd()] : []),
        '', `tokens in ${result.usage.input}, out ${result.usage.output}; cost ${cost}${result.status === 'fixed' && !applied ? '; --apply writes it' : ''}`,
      ].join('\n'));
    }
    return result.status === 'fixed' ? 0 : 1;
  },
};
