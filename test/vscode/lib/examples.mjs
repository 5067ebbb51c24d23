// The example tasks on disk, which the views must show: any folder under examples/ holding a
// task.yaml (Terminal-Bench 1) or task.toml (Harbor).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.mjs';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/** @returns {{ id: string, dir: string, format: 'tb1' | 'harbor' }[]} sorted by id */
export function exampleTasks(root = EXAMPLES_DIR) {
  const found = [];
  const walk = (dir, depth) => {
    if (depth > 4 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = path.join(dir, e.name);
      if (fs.existsSync(path.join(p, 'task.yaml'))) found.push({ id: e.name, dir: p, format: 'tb1' });
      else if (fs.existsSync(path.join(p, 'task.toml'))) found.push({ id: e.name, dir: p, format: 'harbor' });
      else walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return found.sort((a, b) => a.id.localeCompare(b.id));
}
