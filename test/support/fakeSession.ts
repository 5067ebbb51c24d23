import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecOptions, ExecResult, TrialSession } from '../../src/core/agents/agent';
import type { Task } from '../../src/core/model/task';

/**
 * A TrialSession over a local bash in a temporary folder, for testing agent loops without Docker.
 * (Real rollouts run in containers: test/integration/rollout.test.ts.)
 */
export class LocalBashSession implements TrialSession {
  readonly containerId = 'local-test';
  readonly logDir: string;
  readonly workDir: string;
  readonly lines: string[] = [];
  readonly commands: string[] = [];

  constructor(readonly task: Task, root = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-agent-'))) {
    this.workDir = path.join(root, 'work');
    this.logDir = path.join(root, 'logs');
    fs.mkdirSync(this.workDir, { recursive: true });
    fs.mkdirSync(this.logDir, { recursive: true });
  }

  exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.commands.push(command);
    const started = Date.now();
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: this.workDir, detached: true });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
      child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
      const timer = options.timeoutSec ? setTimeout(() => { timedOut = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, options.timeoutSec * 1000) : undefined;
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ exitCode: timedOut ? 124 : (code ?? -1), stdout, stderr, timedOut, durationMs: Date.now() - started });
      });
    });
  }

  copyIn(): Promise<void> {
    return Promise.resolve();
  }

  log(line: string): void {
    this.lines.push(line);
  }

  dispose(): void {
    fs.rmSync(path.dirname(this.workDir), { recursive: true, force: true });
  }
}

/** A minimal task for agent tests: only the instruction matters to the agents. */
export function fakeTask(instruction: string, id = 'fake-task'): Task {
  return {
    id, dir: `/tmp/${id}`, format: 'harbor', configFile: 'task.toml', instructionFile: 'instruction.md', instruction,
    metadata: { difficulty: 'easy', category: 'test', tags: [] },
    timeouts: { agentSec: 60, verifierSec: 60, buildSec: 60 },
    environment: { contextDir: 'environment', env: {} },
    verifier: { entry: 'tests/test.sh', testsDir: 'tests', env: {} },
    agent: {}, solution: { kind: 'script' }, fields: {}, files: [], problems: [],
  };
}
