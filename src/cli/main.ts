import { COMMANDS } from './commands/index';
import { UsageError, parseCommandArgs, type CliCommand, type CliIo } from './command';
import { engineTimeoutMs } from '../core/sandbox/engineDeadline';
import { VERSION } from './version';

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `taskwright ${VERSION} — author, audit, validate and curate terminal-agent tasks`,
    '',
    'Usage: taskwright <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `taskwright <command> --help` for a command\'s options.',
  ].join('\n');
}

function commandHelp(cmd: CliCommand): string {
  return `${cmd.summary}\n\nUsage: ${cmd.usage}`;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(globalHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    io.out(VERSION);
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    io.err(`taskwright: unknown command '${name}'\n\n${globalHelp()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(cmd));
    return 0;
  }
  try {
    return await cmd.run(parseCommandArgs(cmd, rest), io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`taskwright ${cmd.name}: ${e.message}\n\nUsage: ${cmd.usage}`);
      return 2;
    }
    // One line, never a stack trace (TASKWRIGHT_DEBUG=1 shows it): the message names the file or task.
    const debug = io.env.TASKWRIGHT_DEBUG === '1' && e instanceof Error;
    io.err(`taskwright ${cmd.name}: ${debug ? (e.stack ?? e.message) : e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/** Process entry point (bin/taskwright.js): wires signals and stdio to `main`. */
export function runCli(): void {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(`\ntaskwright: ${sig} received, stopping and cleaning up (again to force)…\n`);
    controller.abort(new Error(`interrupted by ${sig}`));
    // The first Ctrl-C always stops: if cleanup hangs (a frozen engine), leave after the engine
    // deadline; the next run's reaper removes what is left.
    setTimeout(() => {
      process.stderr.write('taskwright: cleanup did not finish in time (is the Docker Engine frozen?); leftovers are removed by the next run\n');
      process.exit(130);
    }, engineTimeoutMs() + 5000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const io: CliIo = {
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    errBacklog: () => process.stderr.writableLength,
    cwd: process.cwd(),
    env: process.env,
    signal: controller.signal,
  };
  main(process.argv.slice(2), io).then(
    (code) => { process.exitCode = code; },
    (e: unknown) => { process.stderr.write(`taskwright: ${String(e)}\n`); process.exitCode = 1; },
  );
}
