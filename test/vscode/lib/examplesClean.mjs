// Whether a run left the example tasks as it found them: `git status --porcelain` of examples/ and
// the content hash of every file it lists, taken before and after. A suite that edits an example must
// restore it (or work on a copy); one that does not would make the next run, and the demo, disagree.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.mjs';

/** @returns {string | undefined} the state of examples/ as text, or undefined outside a git work tree */
export function examplesState() {
  let out;
  try {
    out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', 'examples/'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  // An entry already dirty before the run stays allowed, but only with the same bytes.
  return out.split('\n').filter(Boolean).map((line) => {
    const file = path.join(REPO_ROOT, line.slice(3).replace(/^"|"$/g, ''));
    let hash = 'gone';
    try { hash = fs.statSync(file).isFile() ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 12) : 'dir'; } catch { /* deleted */ }
    return `${line} ${hash}`;
  }).join('\n');
}

/** The lines of `after` that `before` did not have: what the run changed under examples/. */
export function examplesChanged(before, after) {
  if (before === undefined || after === undefined) return [];
  const was = new Set(before.split('\n'));
  return after.split('\n').filter((l) => l && !was.has(l));
}
