import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Thrown for bad command-line usage: printed with the command's help, exit code 2. */
export class UsageError extends Error {}

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C / SIGTERM: long commands stop and clean up what they started. */
  readonly signal: AbortSignal;
  /** Bytes written to `err` that the reader has not taken yet (a slow terminal or pipe); unknown: 0. */
  readonly errBacklog?: () => number;
}

export interface CliCommand {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Returns the process exit code. */
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

export interface ParsedArgs {
  readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  readonly positionals: string[];
}

export function parseCommandArgs(cmd: CliCommand, argv: string[]): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: cmd.options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

export function stringOpt(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function boolOpt(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** A whole number option within [min, max]: `1e20`, `0x10` or `2.5` are refused, not taken at face value. */
export function intOpt(args: ParsedArgs, name: string, fallback: number, min = 1, max = 100_000): number {
  const v = stringOpt(args, name);
  if (v === undefined) return fallback;
  const n = /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} takes a whole number from ${min} to ${max} (got '${v}')`);
  return n;
}

export function choiceOpt<T extends string>(args: ParsedArgs, name: string, choices: readonly T[], fallback: T): T {
  const v = stringOpt(args, name);
  if (v === undefined) return fallback;
  if (!(choices as readonly string[]).includes(v)) throw new UsageError(`--${name} takes one of ${choices.join('|')} (got '${v}')`);
  return v as T;
}

/** A share from 0 to 1 (`0`, `0.05`, `.5`, `1`): anything else (`5%`, `1e-2`, `2`) is refused. */
export function rateOpt(args: ParsedArgs, name: string, fallback: number): number {
  const v = stringOpt(args, name);
  if (v === undefined) return fallback;
  const n = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${name} takes a share from 0 to 1, e.g. 0.05 (got '${v}')`);
  return n;
}
