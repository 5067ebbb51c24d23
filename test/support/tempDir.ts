/**
 * Temporary folders for tests, removed when the test process exits (node --test runs each test file
 * in its own process), so a run leaves nothing behind in the system's temp folder even when a test
 * fails before its own clean-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the temp folder, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
