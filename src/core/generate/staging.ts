import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TaskFormat } from '../model/task';
import { pathProblem } from './layout';
import type { TaskDraft } from './types';

/**
 * Staging lives inside the output folder's `.taskwright/` (same filesystem, so acceptance is one
 * atomic rename; and `.taskwright` is never searched for tasks, so drafts never show as tasks).
 */
export function stagingRoot(outDir: string): string {
  return path.join(outDir, '.taskwright', 'generate');
}

/** TB1's compose file is boilerplate the harness needs; the model is spared writing it. */
export const TB1_COMPOSE = `services:
  client:
    build:
      dockerfile: Dockerfile
    image: \${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}
    container_name: \${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}
    command: [ "sh", "-c", "sleep infinity" ]
    environment:
      - TEST_DIR=\${T_BENCH_TEST_DIR}
    volumes:
      - \${T_BENCH_TASK_LOGS_PATH}:\${T_BENCH_CONTAINER_LOGS_PATH}
      - \${T_BENCH_TASK_AGENT_LOGS_PATH}:\${T_BENCH_CONTAINER_AGENT_LOGS_PATH}
`;

export function newStagingDir(outDir: string, runId: string, slot: number): string {
  const dir = path.join(stagingRoot(outDir), runId, `task-${slot}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Writes a draft as a task folder `<stagingDir>/<round>/<id>` (a fresh folder per round, so a repair
 * never inherits a stale file). Paths are checked again here: this is the line that touches disk.
 */
export function writeDraft(stagingDir: string, round: number, draft: TaskDraft, format: TaskFormat): string {
  const dir = path.join(stagingDir, `round-${round}`, draft.id);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const files = [...draft.files];
  if (format === 'tb1' && !files.some((f) => f.path === 'docker-compose.yaml')) files.push({ path: 'docker-compose.yaml', content: TB1_COMPOSE });
  for (const f of files) {
    const bad = pathProblem(f.path, format);
    if (bad) throw new Error(`${draft.id}: refusing to write ${bad}`);
    const abs = path.join(dir, ...f.path.split('/'));
    if (!abs.startsWith(dir + path.sep)) throw new Error(`${draft.id}: refusing to write '${f.path}' outside ${dir}`);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, f.content, { mode: f.path.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

/**
 * Moves an accepted task into the output folder with one rename (readers see all of it or nothing).
 * An existing folder of that id is never overwritten: the new task gets a numbered id.
 */
export function acceptInto(taskDir: string, outDir: string, id: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  for (let n = 1; ; n++) {
    const dest = path.join(outDir, n === 1 ? id : `${id}-${n}`);
    if (fs.existsSync(dest)) continue;
    try {
      fs.renameSync(taskDir, dest);
      return dest;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' || (e as NodeJS.ErrnoException).code === 'ENOTEMPTY') continue;
      throw e;
    }
  }
}

/** Leaves the staging folder in place with a REJECTED.md saying why (never a key: only gate reasons). */
export function writeRejected(stagingDir: string, text: string): string {
  const file = path.join(stagingDir, 'REJECTED.md');
  fs.writeFileSync(file, text);
  return file;
}

export function newGenerateRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-')}-${randomBytes(2).toString('hex')}`;
}

/** Removes a staging folder that holds nothing worth keeping (a cancelled request). */
export function removeStaging(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Removes this run's staging folders when nothing was kept (all accepted or cancelled); the output folder itself stays. */
export function pruneEmptyStaging(outDir: string, runId: string): void {
  const chain = [path.join(stagingRoot(outDir), runId), stagingRoot(outDir), path.join(outDir, '.taskwright')];
  for (const dir of chain) {
    try {
      if (fs.readdirSync(dir).length) return;
      fs.rmdirSync(dir);
    } catch {
      return;
    }
  }
}
