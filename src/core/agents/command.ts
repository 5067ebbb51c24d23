import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Agent, AgentResult, TrialSession } from './agent';

export interface CommandAgentOptions {
  /** Extra environment for the program (e.g. a key from the editor's secret storage). */
  readonly env?: Readonly<Record<string, string>>;
  /** Grace period between SIGTERM and SIGKILL when the phase is stopped. */
  readonly killGraceMs?: number;
}

/**
 * Runs a user's program on the host, so any external agent can drive the trial's container itself.
 * The program gets the instruction on stdin and in `TASKWRIGHT_INSTRUCTION`, the container in
 * `TASKWRIGHT_CONTAINER_ID`, the engine in `DOCKER_HOST`, and a folder for its logs in
 * `TASKWRIGHT_LOG_DIR`. Exit 0 ends the phase normally; any other exit is the policy's error.
 * The program runs through `sh -c`, in its own process group, killed whole when the phase stops.
 */
export class CommandAgent implements Agent {
  readonly spec: string;

  constructor(readonly program: string, private readonly options: CommandAgentOptions = {}) {
    this.spec = `command:${program}`;
  }

  run(session: TrialSession, signal: AbortSignal): Promise<AgentResult> {
    const instruction = session.task.instruction ?? '';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.options.env,
      TASKWRIGHT_INSTRUCTION: instruction,
      TASKWRIGHT_CONTAINER_ID: session.containerId,
      TASKWRIGHT_TASK_ID: session.task.id,
      TASKWRIGHT_TASK_DIR: session.task.dir,
      TASKWRIGHT_LOG_DIR: session.logDir,
      ...(session.dockerHost ? { DOCKER_HOST: dockerHostUrl(session.dockerHost) } : {}),
    };
    const out = fs.openSync(path.join(session.logDir, 'command.stdout'), 'a');
    const err = fs.openSync(path.join(session.logDir, 'command.stderr'), 'a');
    session.log(`$ (host) ${this.program}`);
    return new Promise<AgentResult>((resolve) => {
      const child = spawn('/bin/sh', ['-c', this.program], { env, cwd: session.logDir, stdio: ['pipe', out, err], detached: true });
      if (child.pid !== undefined) trackGroup(child.pid);
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (): void => {
        if (child.pid === undefined || child.exitCode !== null) return;
        try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
        killTimer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } }, this.options.killGraceMs ?? 3000);
      };
      signal.addEventListener('abort', stop, { once: true });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(instruction);
      const finish = (r: AgentResult): void => {
        clearTimeout(killTimer);
        // Children the program left in its group (a server it started) end with its phase.
        if (child.pid !== undefined) {
          try { process.kill(-child.pid, 'SIGKILL'); } catch { /* none left */ }
          liveGroups.delete(child.pid);
        }
        signal.removeEventListener('abort', stop);
        fs.closeSync(out);
        fs.closeSync(err);
        session.log(`[command agent ${r.status === 'completed' ? 'exited 0' : r.error}]`);
        resolve(r);
      };
      child.on('error', (e) => finish({ status: 'error', error: `could not start '${this.program}': ${e.message}` }));
      child.on('exit', (code, sig) => {
        if (code === 0) finish({ status: 'completed' });
        else finish({ status: 'error', error: sig ? `'${this.program}' killed by ${sig}` : `'${this.program}' exited with ${code}` });
      });
    });
  }
}

/** Process groups of `command:` agents still running: killed if this process exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The CLI may exit (Ctrl-C, a fatal error) before a stopped program's grace period ends.
  process.on('exit', () => {
    for (const g of liveGroups) { try { process.kill(-g, 'SIGKILL'); } catch { /* already gone */ } }
  });
}

/** The runner reports a socket path or a URL; the Docker CLI wants `unix://` for sockets. */
export function dockerHostUrl(endpoint: string): string {
  return endpoint.startsWith('/') ? `unix://${endpoint}` : endpoint;
}
