import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../model/task';

const MAX_FILE_BYTES = 64 * 1024;
const MAX_TOTAL_BYTES = 400 * 1024;

export interface TaskText {
  readonly file: string;
  readonly text: string;
}

/**
 * The task's text files as the reviewer reads them (inline: tasks are small), never following a
 * link out of the task folder. Large or binary files are listed but not included.
 */
export function taskTexts(task: Task): { texts: TaskText[]; skipped: string[] } {
  const texts: TaskText[] = [];
  const skipped: string[] = [];
  let total = 0;
  const root = fs.realpathSync(task.dir);
  for (const file of task.files) {
    const abs = path.join(task.dir, ...file.split('/'));
    let real: string;
    try { real = fs.realpathSync(abs); } catch { skipped.push(file); continue; }
    if (real !== root && !real.startsWith(root + path.sep)) { skipped.push(file); continue; }
    const st = fs.statSync(real);
    if (!st.isFile() || st.size > MAX_FILE_BYTES || total + st.size > MAX_TOTAL_BYTES) { skipped.push(file); continue; }
    const buf = fs.readFileSync(real);
    if (buf.includes(0)) { skipped.push(file); continue; }
    total += st.size;
    texts.push({ file, text: buf.toString('utf8') });
  }
  return { texts, skipped };
}

/** Files with 1-based line numbers, so the model can cite `file` + lines + the quoted text. */
export function renderTexts(texts: readonly TaskText[], skipped: readonly string[]): string {
  const parts = texts.map((t) => {
    const numbered = t.text.split('\n').map((l, i) => `${String(i + 1).padStart(4)}| ${l}`).join('\n');
    return `=== ${t.file} ===\n${numbered}`;
  });
  if (skipped.length) parts.push(`(not shown: ${skipped.join(', ')})`);
  return parts.join('\n\n');
}
