import fs from 'node:fs';
import path from 'node:path';
import type { ExecOptions, ExecResult, TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import { CappedLog } from './cappedLog';
import { assertInsideTask } from './contain';
import { entriesFromDir, entryFromFile, tarStream } from './tar';
import type { ContainerRuntime } from './runtime';

/**
 * Runs a shell command the way a terminal agent would type it: bash when the image has it, else
 * sh; bounded inside the container by coreutils/busybox `timeout` when one is given, so the
 * process really stops (the engine's exec API cannot kill it).
 */
export const SHELL_WRAPPER =
  'S=sh; command -v bash >/dev/null 2>&1 && S=bash; '
  + 'if [ -n "$2" ] && command -v timeout >/dev/null 2>&1; then exec timeout -k 5 "$2" "$S" -c "$1"; fi; exec "$S" -c "$1"';

export function shellCommand(command: string, timeoutSec?: number): string[] {
  return ['/bin/sh', '-c', SHELL_WRAPPER, 'taskwright', command, timeoutSec ? String(Math.ceil(timeoutSec)) : ''];
}

/**
 * Copies a host file or folder into an existing container folder (a folder keeps its name),
 * streamed. A path of the task (`taskDir`) that leads outside it, or holds a link that does, is
 * refused before anything is sent.
 */
export async function copyInto(runtime: ContainerRuntime, containerId: string, hostPath: string, containerDir: string, taskDir?: string): Promise<void> {
  const base = path.basename(hostPath);
  const within = taskDir && !path.relative(path.resolve(taskDir), path.resolve(hostPath)).startsWith('..') ? taskDir : undefined;
  if (within) assertInsideTask(within, hostPath);
  const st = fs.statSync(hostPath);
  const entries = st.isDirectory()
    ? [{ name: base, mode: st.mode, type: 'dir' as const }, ...entriesFromDir(hostPath, base, { ...(within ? { within } : {}) })]
    : [entryFromFile(hostPath, base, within)];
  await runtime.putArchive(containerId, containerDir, tarStream(entries));
}

export interface SessionLogs {
  readonly dir: string;
  /** File name prefix for exec output (`agent` → agent.stdout / agent.stderr). */
  readonly prefix: string;
  readonly onOutput?: (text: string) => void;
  /** The session's own lines (each command), started on a line of their own (TrialRequest.onLine). */
  readonly onLine?: (line: string) => void;
}

/** The agent's view of a trial: commands in the trial's fresh container, logged to the trial folder. */
export class ContainerSession implements TrialSession {
  readonly logDir: string;
  /** One capped log per stream for the whole session: an agent printing gigabytes fills at most the cap. */
  private readonly streams = new Map<string, CappedLog>();

  constructor(
    readonly task: Task,
    readonly containerId: string,
    private readonly runtime: ContainerRuntime,
    private readonly logs: SessionLogs,
    private readonly phaseSignal: AbortSignal,
    readonly dockerHost?: string,
    private readonly defaults: {
      readonly user?: string;
      readonly env?: Readonly<Record<string, string>>;
      /** Runs once before the first command or copy (the harness creates its folders lazily). */
      readonly beforeFirstUse?: () => Promise<void>;
    } = {},
  ) {
    this.logDir = logs.dir;
  }

  private file(name: string): string {
    return path.join(this.logs.dir, name);
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    await this.defaults.beforeFirstUse?.();
    const signal = options.signal ? AbortSignal.any([options.signal, this.phaseSignal]) : this.phaseSignal;
    fs.appendFileSync(this.file(`${this.logs.prefix}.log`), `$ ${command}\n`);
    (this.logs.onLine ?? this.logs.onOutput)?.(`$ ${command}\n`);
    const out = (name: string) => (c: Buffer): void => {
      this.stream(name).write(c);
      this.logs.onOutput?.(c.toString('utf8'));
    };
    const r = await this.runtime.exec(this.containerId, {
      cmd: shellCommand(command, options.timeoutSec),
      env: { ...this.defaults.env, ...options.env },
      user: options.user ?? this.defaults.user,
      workdir: options.workdir,
      // The in-container `timeout` stops the process; this only bounds the wait if it is missing.
      timeoutMs: options.timeoutSec ? (options.timeoutSec + 10) * 1000 : undefined,
      signal,
      onStdout: out('stdout'),
      onStderr: out('stderr'),
    });
    // The note says what was cut, after the command that went past the cap.
    for (const log of this.streams.values()) log.end();
    const timedOut = r.timedOut || (options.timeoutSec !== undefined && r.exitCode === 124);
    fs.appendFileSync(this.file(`${this.logs.prefix}.log`), `[exit ${r.exitCode ?? 'none'}${timedOut ? ', timed out' : ''}, ${r.durationMs} ms]\n`);
    return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, timedOut, durationMs: r.durationMs };
  }

  private stream(name: string): CappedLog {
    let log = this.streams.get(name);
    if (!log) {
      log = new CappedLog(this.file(`${this.logs.prefix}.${name}`));
      this.streams.set(name, log);
    }
    return log;
  }

  async copyIn(hostPath: string, containerDir: string): Promise<void> {
    await this.defaults.beforeFirstUse?.();
    return copyInto(this.runtime, this.containerId, hostPath, containerDir, this.task.dir);
  }

  log(line: string): void {
    fs.appendFileSync(this.file(`${this.logs.prefix}.log`), line.endsWith('\n') ? line : `${line}\n`);
    (this.logs.onLine ?? this.logs.onOutput)?.(line.endsWith('\n') ? line : `${line}\n`);
  }
}
