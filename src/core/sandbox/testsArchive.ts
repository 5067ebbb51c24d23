import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { testsLayers, type Task } from '../model/task';
import { isLink } from './contain';
import { entriesFromDir, entryFromFile, tarStream, type TarEntry } from './tar';

/**
 * The verifier's files as one archive extracted at `/`: the harness folders (again, harmlessly, if
 * the agent phase created them) and the tests under `testsTarget`.
 */
export function testsArchive(task: Task, testsTarget: string, dirs: readonly string[], extra: readonly (readonly [string, string])[]): Readable {
  const target = testsTarget.replace(/^\/+/, '');
  const entries: TarEntry[] = dirs.map((d) => ({ name: d.replace(/^\/+/, ''), mode: 0o755, type: 'dir' as const }));
  // Every folder and file named is checked before anything is sent: one that leads out of the task
  // refuses the whole archive; links inside the tests folder go as links, never followed.
  entries.push(...testsEntries(task, target, task.dir));
  for (const [rel, name] of extra) {
    const abs = path.resolve(task.dir, rel);
    const full = `${target}/${name}`;
    const i = entries.findIndex((e) => e.name === full);
    if (i >= 0) entries.splice(i, 1);
    if (fs.existsSync(abs) || isLink(abs)) entries.push(entryFromFile(abs, full, task.dir));
    // TB1 falls back to running the tests with pytest when a task ships no run-tests.sh.
    else if (task.format === 'tb1' && name === 'run-tests.sh') entries.push({ name: full, mode: 0o755, type: 'file', data: Buffer.from(TB1_DEFAULT_RUN_TESTS) });
  }
  return tarStream(entries);
}

/**
 * The tests folder's entries under `target`, layer by layer (a multi-step task's task-level tests/
 * first, the step's own over it): a later layer's file replaces an earlier one of the same name.
 * `within`: refuse a tests folder that leads out of the task (links inside it go as links).
 */
export function testsEntries(task: Task, target: string, within?: string): TarEntry[] {
  const byName = new Map<string, TarEntry>();
  for (const dir of testsLayers(task.verifier)) {
    const abs = path.resolve(task.dir, dir);
    if (!fs.existsSync(abs)) continue;
    for (const e of entriesFromDir(abs, target, within ? { within } : {})) {
      const prev = byName.get(e.name);
      // A folder met again keeps its place; a file or link of the later layer wins.
      if (prev && prev.type === 'dir' && e.type === 'dir') continue;
      byName.delete(e.name);
      byName.set(e.name, e);
    }
  }
  return [...byName.values()];
}

const TB1_DEFAULT_RUN_TESTS = '#!/bin/bash\n# taskwright: the task has no run-tests.sh; run its tests as TB1 does by default\npython3 -m pytest "$TEST_DIR" -rA\n';
