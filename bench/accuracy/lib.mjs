// The bench's arithmetic, shared by run.mjs and its tests: the deterministic samples of
// bench/accuracy (seed, sha256 orderings as ACCURACY-LABELS.md specifies), fingerprints of lines,
// and the Wilson interval. Nothing here reads the audit or the labels.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SEED = 20261202;
export const PRECISION_SAMPLE = 20;
export const TASK_SAMPLE = 60;
export const MIN_PER_CORPUS = 3;
// The held-out corpora (corpora.json "set": "heldout") are read by one reader in one sitting: a
// smaller precision stratum and task sample, same seed and orderings.
export const HELDOUT_PRECISION_SAMPLE = 10;
export const HELDOUT_TASK_SAMPLE = 8;
// The second blind set was read the same way with a slightly larger task sample (ceil(10 × share)).
export const BLIND2_TASK_SAMPLE = 10;
// The third blind set: same sizes as blind2 (ceil(10 × share) tasks, 10 per precision stratum).
export const BLIND3_TASK_SAMPLE = 10;
// The fourth blind set: single-task repositories by 16 authors plus the Harbor cookbook; same sizes.
export const BLIND4_TASK_SAMPLE = 10;
// The fifth: the next single-task repositories of the same seeded order, after the fourth set's fixes.
export const BLIND5_TASK_SAMPLE = 10;
// The sixth: twelve repositories from a seeded order of public listings by name ("harbor-task",
// "terminal-bench"), one per new author, including a recent Harbor fork's own example tasks.
export const BLIND6_TASK_SAMPLE = 10;
// The seventh: twelve more, from a seeded order of the public listing of repositories named like
// "bench-task" plus the sixth set's unused candidates, measured after the sixth set's fixes.
export const BLIND7_TASK_SAMPLE = 10;
// The eighth: the next twelve of the seventh set's order, one of them a fork of the Terminal-Bench
// repository whose original tasks (well-kept ones) take most of the sample; after the seventh's fixes.
export const BLIND8_TASK_SAMPLE = 10;
// The ninth: twelve repositories by twelve new authors, the seventh order's last candidates then a seeded
// order (`sha256("20261207:b9:" + repo)`) of new public listings; measured after the eighth set's fixes.
export const BLIND9_TASK_SAMPLE = 10;
// The tenth: fourteen single-task repositories by fourteen new authors, a seeded order
// (`sha256("20261207:b10:" + repo)`) of the public listings of repositories holding a root task.toml or
// solution/solve.sh; measured after the ninth set's fixes. Every task is read (each corpus holds one).
export const BLIND10_TASK_SAMPLE = 10;
// The eleventh: a seeded order (`sha256("20261207:b11:" + repo)`) of the public listings of repository
// names containing "swarmbench" and "rl-env" plus the tenth order's two unexamined candidates, one per
// new author; all eight that hold a task (120 walked); measured after the tenth set's fixes.
export const BLIND11_TASK_SAMPLE = 10;
// The twelfth: a seeded order (`sha256("20261207:b12:" + repo)`) of the public listing of repository names
// containing "rl-task" plus one "harbor-env"; the two of 98 that hold a task; measured after the eleventh's fixes.
export const BLIND12_TASK_SAMPLE = 10;
// The thirteenth: a seeded order (`sha256("20261207:b13:" + repo)`) of the public listing of repositories
// holding Harbor's template task (`tasks/hello-world/task.toml`), one per new author; the four of twelve
// whose snapshot could be fetched; measured after the fixes made from the pooled misses of the first twelve.
export const BLIND13_TASK_SAMPLE = 10;
// The fourteenth: a seeded order (`sha256("20261207:b14:" + repo)`) of the public listing of repositories
// holding `task/task.toml` (59, many of them one assessment's candidates), one per new author; the first six
// whose snapshot holds a task; measured after the thirteenth set's fixes. Every task is read.
export const BLIND14_TASK_SAMPLE = 10;
// The fifteenth: the next six of the fourteenth set's order whose snapshot holds a task, each registered at
// its task/ folder (the folder the listing names); measured after the fourteenth set's fixes. Every task is read.
export const BLIND15_TASK_SAMPLE = 10;
// The sixteenth: the next six of the same order whose snapshot holds a task, each registered at the folder
// holding its task.toml (task/, or the root where the snapshot keeps it there); measured after the fifteenth
// set's fixes. Every task is read.
export const BLIND16_TASK_SAMPLE = 10;
// The seventeenth: a seeded order (`sha256("20261207:b17:" + repo)`) of the first 100 repositories of the public
// listing of repositories holding tests/test_outputs.py, one per new author; the first five whose snapshot holds
// a task.toml or task.yaml (two Terminal-Bench 1 tasks among them); measured after the sixteenth set's fixes.
// Every task is read.
export const BLIND17_TASK_SAMPLE = 10;
// The eighteenth: a seeded order (`sha256("20261207:b18:" + repo)`) of the public listing of repository names
// containing "terminalbench" (21), one per new author; all four whose snapshot holds a task (three Terminal-Bench
// 1 tasks); measured after the seventeenth set's fixes. Every task is read.
export const BLIND18_TASK_SAMPLE = 10;
// The nineteenth: the seventeenth set's order continued, the next six whose snapshot holds a task (all of them
// candidates' versions of one assessment's log-report task); measured after the eighteenth set's fixes. Every
// task is read.
export const BLIND19_TASK_SAMPLE = 10;
// The twentieth: the same order continued, the next six whose snapshot holds a task (again one assessment's
// task as different candidates wrote it); measured after the nineteenth set's fixes. Every task is read.
export const BLIND20_TASK_SAMPLE = 10;
// The twenty-first: a seeded order of the first hundred repositories the index lists as holding a root
// task.yaml, the five by new owners laid out as Terminal-Bench 1 tasks; measured after the twentieth set's
// fixes. Every task is read.
export const BLIND21_TASK_SAMPLE = 10;
// The twenty-second: a seeded order of the first hundred repositories the index lists as holding
// environment/docker-compose.yaml or solution/solve.py, the seven by new owners whose snapshot holds a
// task (at most three of one assessment's log-report task); measured after fixes made from the pooled
// misses of the first twenty-one sets. Every task is read.
export const BLIND22_TASK_SAMPLE = 10;
// The twenty-third: a seeded order of public listings of repository names containing "snorkel", "tb-task",
// "-tb-" and "terminal-task" (new owners only): the one whose snapshot could be fetched holds 25 Harbor
// tasks; measured after the twenty-second set's fixes. Ten tasks read (the task sample).
export const BLIND23_TASK_SAMPLE = 10;
// The twenty-fourth: a dataset repository read as a sample: 60 task folders, in a seeded order, of the
// 14,600-task generated Harbor set `datasets/tmax` of PrimeIntellect-ai/research-tasks (laid out only there,
// `extractPaths`); measured after the twenty-third set's fixes. Ten tasks read (the task sample).
export const BLIND24_TASK_SAMPLE = 10;

/**
 * The corpus sets, each with its own label file (`source`, the reader's random-sample reading),
 * precision stratum size and task-sample target. A set with `frozen` was measured blind once: that
 * file (beside corpora.json) holds the figures of that first measurement and is never rewritten.
 * `cleanAnywhere`: the reader may also label well-kept tasks outside the random sample as clean.
 */
export const SETS = [
  { id: 'dev', title: 'development corpora (rules tuned on them: in-sample)', source: 'core.json', size: PRECISION_SAMPLE, target: TASK_SAMPLE, cleanAnywhere: false, frozen: null },
  { id: 'heldout', title: 'held-out corpora', source: 'heldout.json', size: HELDOUT_PRECISION_SAMPLE, target: HELDOUT_TASK_SAMPLE, cleanAnywhere: true, frozen: 'heldout-blind.json' },
  { id: 'blind2', title: 'second blind held-out corpora', source: 'blind2.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND2_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind2-blind.json' },
  { id: 'blind3', title: 'third blind held-out corpora', source: 'blind3.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND3_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind3-blind.json' },
  { id: 'blind4', title: 'fourth blind held-out corpora', source: 'blind4.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND4_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind4-blind.json' },
  { id: 'blind5', title: 'fifth blind held-out corpora', source: 'blind5.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND5_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind5-blind.json' },
  { id: 'blind6', title: 'sixth blind held-out corpora', source: 'blind6.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND6_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind6-blind.json' },
  { id: 'blind7', title: 'seventh blind held-out corpora', source: 'blind7.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND7_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind7-blind.json' },
  { id: 'blind8', title: 'eighth blind held-out corpora', source: 'blind8.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND8_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind8-blind.json' },
  { id: 'blind9', title: 'ninth blind held-out corpora', source: 'blind9.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND9_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind9-blind.json' },
  { id: 'blind10', title: 'tenth blind held-out corpora', source: 'blind10.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND10_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind10-blind.json' },
  { id: 'blind11', title: 'eleventh blind held-out corpora', source: 'blind11.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND11_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind11-blind.json' },
  { id: 'blind12', title: 'twelfth blind held-out corpora', source: 'blind12.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND12_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind12-blind.json' },
  { id: 'blind13', title: 'thirteenth blind held-out corpora', source: 'blind13.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND13_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind13-blind.json' },
  { id: 'blind14', title: 'fourteenth blind held-out corpora', source: 'blind14.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND14_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind14-blind.json' },
  { id: 'blind15', title: 'fifteenth blind held-out corpora', source: 'blind15.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND15_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind15-blind.json' },
  { id: 'blind16', title: 'sixteenth blind held-out corpora', source: 'blind16.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND16_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind16-blind.json' },
  { id: 'blind17', title: 'seventeenth blind held-out corpora', source: 'blind17.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND17_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind17-blind.json' },
  { id: 'blind18', title: 'eighteenth blind held-out corpora', source: 'blind18.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND18_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind18-blind.json' },
  { id: 'blind19', title: 'nineteenth blind held-out corpora', source: 'blind19.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND19_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind19-blind.json' },
  { id: 'blind20', title: 'twentieth blind held-out corpora', source: 'blind20.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND20_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind20-blind.json' },
  { id: 'blind21', title: 'twenty-first blind held-out corpora', source: 'blind21.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND21_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind21-blind.json' },
  { id: 'blind22', title: 'twenty-second blind held-out corpora', source: 'blind22.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND22_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind22-blind.json' },
  { id: 'blind23', title: 'twenty-third blind held-out corpora', source: 'blind23.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND23_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind23-blind.json' },
  { id: 'blind24', title: 'twenty-fourth blind held-out corpora', source: 'blind24.json', size: HELDOUT_PRECISION_SAMPLE, target: BLIND24_TASK_SAMPLE, cleanAnywhere: true, frozen: 'blind24-blind.json' },
];

/** The set a corpora.json entry belongs to: its `set`, else `heldOut: true` (the old form) → heldout, else dev. */
export function setOf(corpus) {
  if (typeof corpus.set === 'string') return corpus.set;
  return corpus.heldOut ? 'heldout' : 'dev';
}

export const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');

/** First 16 hex of sha256 of a line's text, trimmed: what a label's `fp` holds. */
export const fingerprint = (text) => sha256(text.trim()).slice(0, 16);

/** The key a finding label matches on: corpus + task + rule + file + line (null → ""). */
export const findingKey = (x) => `${x.corpus}\u0000${x.task}\u0000${x.rule}\u0000${x.file ?? ''}\u0000${x.line ?? ''}`;

/** Ordering hash of a finding in its (rule, severity) stratum. */
export const findingOrder = (seed, f) => sha256(`${seed}:${f.corpus}/${f.task}/${f.file ?? ''}:${f.line ?? ''}:${f.rule}`);

/** Ordering hash of a task in its corpus stratum. */
export const taskOrder = (seed, corpus, task) => sha256(`${seed}:${corpus}/${task}`);

/**
 * The precision sample: per (rule, severity) with severity error or warning, the first `size`
 * findings by their ordering hash. Findings with the same key (one line, two messages) count once.
 * Returns Map "rule\u0000severity" → sampled findings.
 */
export function precisionSample(findings, seed = SEED, size = PRECISION_SAMPLE) {
  const strata = new Map();
  for (const f of findings) {
    if (f.severity !== 'error' && f.severity !== 'warning') continue;
    const k = `${f.rule}\u0000${f.severity}`;
    if (!strata.has(k)) strata.set(k, new Map());
    const s = strata.get(k);
    const key = findingKey(f);
    if (!s.has(key)) s.set(key, f);
  }
  const out = new Map();
  for (const [k, s] of strata) {
    const ordered = [...s.values()].map((f) => ({ f, h: findingOrder(seed, f) })).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
    out.set(k, ordered.slice(0, size).map((x) => x.f));
  }
  return out;
}

/** How many tasks the stratified task sample takes from a corpus of `n` tasks out of `total`. */
export function perCorpusQuota(n, total, target = TASK_SAMPLE, min = MIN_PER_CORPUS) {
  if (n === 0 || total === 0) return 0;
  return Math.min(n, Math.max(min, Math.ceil(target * (n / total))));
}

/** The task sample: { corpus → [task, ...] } from { corpus → [task, ...] } (all tasks). */
export function taskSample(tasksByCorpus, seed = SEED, target = TASK_SAMPLE) {
  const total = Object.values(tasksByCorpus).reduce((a, t) => a + t.length, 0);
  const out = {};
  for (const [corpus, tasks] of Object.entries(tasksByCorpus)) {
    const q = perCorpusQuota(tasks.length, total, target);
    out[corpus] = tasks.map((t) => ({ t, h: taskOrder(seed, corpus, t) })).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0)).slice(0, q).map((x) => x.t);
  }
  return out;
}

/** Wilson score interval (95%) for k successes in n trials; null when n is 0. */
export function wilson(k, n, z = 1.96) {
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const den = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / den;
  return { p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

const SKIP_DIRS = new Set(['.git', 'node_modules', '.venv', 'venv', 'myvenv', '__pycache__']);

/**
 * Task folders under `root/rel` (a folder holding task.toml or task.yaml), found by walking the
 * files, independent of the audit's loader; a task folder is not searched further (its steps are
 * part of it). Paths are relative to `root`, POSIX.
 */
export function listTaskFolders(root, rel) {
  const out = [];
  const walk = (r) => {
    const abs = path.join(root, r);
    let entries;
    try { entries = fs.readdirSync(abs, { withFileTypes: true }); } catch { return; }
    if (entries.some((e) => e.isFile() && (e.name === 'task.toml' || e.name === 'task.yaml'))) { out.push(r); return; }
    for (const e of entries) if (e.isDirectory() && !SKIP_DIRS.has(e.name)) walk(r === '.' ? e.name : `${r}/${e.name}`);
  };
  walk(rel);
  return out.sort();
}

/** A file's lines, read once (null when it cannot be read). */
function cachedLines() {
  const cache = new Map();
  return (abs) => {
    if (!cache.has(abs)) {
      let lines = null;
      try { lines = fs.readFileSync(abs, 'utf8').split(/\r?\n/); } catch { /* absent */ }
      cache.set(abs, lines);
    }
    return cache.get(abs);
  };
}

/**
 * (abs file, line) → the first line of the logical line holding it: lines before it that end in a
 * backslash continue into it (shell and Dockerfile commands split over lines).
 */
export function logicalLineStart() {
  const linesOf = cachedLines();
  return (abs, line) => {
    const lines = linesOf(abs);
    if (!lines || line == null) return line;
    let n = line;
    while (n > 1 && /\\\s*$/.test(lines[n - 2] ?? '')) n--;
    return n;
  };
}

/** The text of line `line` (1-based) of `file`, or null when it is not there. Cached per file. */
export function lineReader() {
  const linesOf = cachedLines();
  return (abs, line) => {
    const lines = linesOf(abs);
    if (!lines || line == null || line < 1 || line > lines.length) return null;
    return lines[line - 1];
  };
}
