import fs from 'node:fs';
import path from 'node:path';
import { loadTask } from '../../core/loader';
import { defaultResultsDir, readRun } from '../../core/results/store';
import { exportRunAtif } from '../../core/trials/exportAtif';
import { boolOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { VERSION } from '../version';

/** A run folder, or the id of a run of `./.taskwright/runs`. */
function resolveRun(arg: string, cwd: string): string {
  const direct = path.resolve(cwd, arg);
  if (fs.existsSync(direct)) return direct;
  const byId = path.join(defaultResultsDir(cwd), arg);
  if (fs.existsSync(byId)) return byId;
  throw new UsageError(`no run folder ${arg} (neither a path nor a run id in ${defaultResultsDir(cwd)})`);
}

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'Write the trajectories of a run\'s trials in another format (ATIF, Harbor\'s trajectory format)',
  usage: [
    'taskwright export --atif RUN [--out DIR]',
    '',
    '  RUN         a run folder (.taskwright/runs/<id>) or a run id',
    '  --atif      write one ATIF (Agent Trajectory Interchange Format, v1.4) file per trial: <trial>.json',
    '  --out DIR   where to write them; default RUN/atif',
    '',
    'Trials whose agent wrote no trajectory (oracle, nop, program agents) are listed and skipped.',
    'Exit status: 0 when written, 2 on usage errors.',
  ].join('\n'),
  options: { atif: { type: 'boolean' }, out: { type: 'string' } },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    if (!boolOpt(args, 'atif')) throw new UsageError('say which format: --atif');
    if (args.positionals.length !== 1) throw new UsageError('give one RUN (a run folder or run id)');
    const runDir = resolveRun(args.positionals[0]!, io.cwd);
    const out = path.resolve(io.cwd, stringOpt(args, 'out') ?? path.join(runDir, 'atif'));
    const base = readRun(runDir).params?.cwd ?? io.cwd;
    const result = await exportRunAtif(runDir, out, {
      version: VERSION,
      instructionOf: async (task) => {
        const dir = path.resolve(base, task);
        return fs.existsSync(dir) ? (await loadTask(dir)).instruction : undefined;
      },
    });
    for (const s of result.skipped) io.err(`skipped ${s.trial}: ${s.reason}`);
    io.out(`wrote ${result.written.length} ATIF trajector${result.written.length === 1 ? 'y' : 'ies'} to ${path.relative(io.cwd, out) || '.'}`);
    return 0;
  },
};
