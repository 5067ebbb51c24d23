import fs from 'node:fs';
import path from 'node:path';
import { testsLayers, type Task } from '../model/task';
import { escapeRegExp } from '../parse/regex';

/**
 * The verifier's own files as text (the tests folder and the TB1 entry script), read once per
 * task: what the probes scan to decide whether they apply and what to plant.
 */
export interface VerifierFile {
  readonly rel: string;
  readonly text: string;
}

const cache = new WeakMap<Task, VerifierFile[]>();
const MAX_BYTES = 256 * 1024;

export function verifierFiles(task: Task): VerifierFile[] {
  const hit = cache.get(task);
  if (hit) return hit;
  const out: VerifierFile[] = [];
  let total = 0;
  const add = (abs: string): void => {
    const rel = path.relative(task.dir, abs).split(path.sep).join('/');
    if (rel.startsWith('..') || out.some((f) => f.rel === rel)) return;
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > 64 * 1024 || total + st.size > MAX_BYTES) return;
    const data = fs.readFileSync(abs);
    if (data.includes(0)) return;
    total += st.size;
    out.push({ rel, text: data.toString('utf8') });
  };
  const walk = (dir: string, depth: number): void => {
    for (const n of fs.readdirSync(dir).sort()) {
      const abs = path.join(dir, n);
      const st = fs.lstatSync(abs);
      if (st.isDirectory() && depth < 3 && n !== '__pycache__') walk(abs, depth + 1);
      else if (st.isFile()) add(abs);
    }
  };
  for (const dir of testsLayers(task.verifier)) {
    const testsDir = path.resolve(task.dir, dir);
    if (fs.existsSync(testsDir) && fs.statSync(testsDir).isDirectory()) walk(testsDir, 0);
  }
  const entry = path.resolve(task.dir, task.verifier.entry);
  if (fs.existsSync(entry)) add(entry);
  cache.set(task, out);
  return out;
}

export function verifierMentions(task: Task, re: RegExp): boolean {
  return verifierFiles(task).some((f) => re.test(f.text));
}

/** A command called by bare name (so PATH decides which binary runs) in the verifier's scripts or subprocess calls. */
export function callsBare(task: Task, tool: string): boolean {
  const t = escapeRegExp(tool);
  // `python3 -m pytest` runs the module, not a `pytest` found on PATH.
  const shell = new RegExp(`(^|[^\\w/.-])(?<!-m\\s+)${t}(?=[\\s;|&)]|$)`);
  const py = new RegExp(`["']${t}["']`);
  return verifierFiles(task).some((f) => (f.rel.endsWith('.py')
    ? /subprocess|os\.system|check_output|Popen/.test(f.text) && py.test(f.text)
    : f.text.split('\n').some((line) => !/^\s*#/.test(line) && shell.test(line))));
}

/**
 * The lines of the verifier's scripts that start pytest (TB1's default `run-tests.sh` when the task
 * ships none). Undefined when pytest is started some other way we cannot read (`pytest.main` in
 * Python, no script at all): then every pytest probe applies.
 */
export function pytestCallLines(task: Task): string[] | undefined {
  const files = verifierFiles(task);
  if (files.some((f) => f.rel.endsWith('.py') && /pytest\.main\s*\(/.test(f.text))) return undefined;
  const lines = files.filter((f) => !f.rel.endsWith('.py')).flatMap((f) => f.text.split('\n')).filter((l) => !/^\s*#/.test(l) && /(^|[^\w-])pytest(\s|$|")/.test(l) && !/^\s*(echo|printf)\s/.test(l));
  if (task.format === 'tb1' && !fs.existsSync(path.resolve(task.dir, task.verifier.entry))) lines.push('python3 -m pytest "$TEST_DIR" -rA');
  return lines.length ? lines : undefined;
}

/** Whether every pytest call satisfies `safe` (false when they cannot be read). */
export function everyPytestCall(task: Task, safe: (line: string) => boolean): boolean {
  const lines = pytestCallLines(task);
  return lines !== undefined && lines.every(safe);
}

/** Python started isolated (`-I`) or without the user site (`-s`) on this line. */
export const isolatedPython = (line: string): boolean => /python[\d.]*\s+(-\w*[Is]\w*\s+)/.test(line);
