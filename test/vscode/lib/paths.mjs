// Where the rig and the project live; every script of the rig resolves paths from here, so they run
// from any working directory.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RIG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(RIG_DIR, '../..');
export const CODE_SERVER_DIR = process.env.TASKWRIGHT_CODE_SERVER ?? path.join(RIG_DIR, 'node_modules/code-server');
export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');
export const RUNTIME_DIR = path.join(RIG_DIR, '.rt');

/** Debian's chromium (or $CHROMIUM): the rig never downloads a browser. */
export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const p = path.join(dir, name);
      if (fs.existsSync(p)) return p;
    }
  }
  throw new Error('no chromium on PATH: run `bash test/vscode/setup.sh` (installs Debian\'s chromium) or set CHROMIUM=/path/to/chromium');
}

export function assertRigInstalled() {
  if (!fs.existsSync(path.join(CODE_SERVER_DIR, 'out/node/entry.js'))) {
    throw new Error(`code-server is not installed at ${CODE_SERVER_DIR}: run \`bash test/vscode/setup.sh\``);
  }
}
