#!/usr/bin/env node
// Audit accuracy on real tasks (issue 11): runs the built CLI's audit over every corpus of
// corpora.json, joins the labels of labels/*.json and prints per rule: findings, tasks hit, the
// precision sample, labelled, precision (Wilson 95%), stale labels; then recall on the random task
// sample, clean-task quietness and the outside judgement of terminal-bench-qc's fixtures.
//   npm run build && node bench/accuracy/run.mjs [--help] [--corpus DIR] [--rules a,b] [--sample-out FILE]
//       [--tasks-out FILE] [--recall-out FILE] [--reuse] [--jobs N] [--write]
//       [--set dev|heldout|blind2|blind3|blind4|blind5|blind6|blind7|blind8|blind9|blind10|blind11|blind12|blind13|blind14|blind15|blind16|blind17|blind18|blind19|blind20|blind21|blind22|blind23|blind24|all] [--write-blind [--blind-notes FILE] [--audited-at COMMIT]]
// Corpus sets (lib.mjs SETS; corpora.json "set"): dev (the rules were tuned on them) and the
// held-out sets (heldout, blind2 … blind24), each with its own samples and figures; --set picks which to
// audit and print (--sample-out, --tasks-out and --recall-out take the one set asked for, dev by
// default). --write-blind --set X freezes set X's figures into its frozen file (e.g. blind2-blind.json)
// and its section of ../ACCURACY.md, once, before any rule change after the set was first read;
// it refuses to overwrite a frozen file; --audited-at names the commit whose rules made a --reuse audit.
// The corpus folder is --corpus, else $TASKWRIGHT_CORPUS_DIR, else bench/.corpus (git-ignored); a
// corpus missing there is laid out from /work/.mirror/<name>/repo with extract.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SEED, SETS as ALL_SETS, findingKey, fingerprint, lineReader, listTaskFolders, logicalLineStart, precisionSample, setOf, taskSample } from './lib.mjs';
import { loadLabels, joinFindingLabels } from './labels.mjs';
import { computeStats } from './stats.mjs';
import { printReport, writeBlind, writeOutputs } from './report.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const CACHE = path.join(ROOT, 'bench/.corpus/accuracy-audit.json');

// The usage is the comment this file opens with.
const HEAD = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
const USAGE = HEAD.slice(0, HEAD.findIndex((l) => !l.startsWith('//'))).map((l) => l.slice(3)).join('\n');
let parsed;
try {
  parsed = parseArgs({
  options: {
    corpus: { type: 'string' }, rules: { type: 'string' }, 'sample-out': { type: 'string' }, 'tasks-out': { type: 'string' }, 'recall-out': { type: 'string' },
    reuse: { type: 'boolean', default: false }, jobs: { type: 'string', default: '2' }, write: { type: 'boolean', default: false },
    mirror: { type: 'string', default: '/work/.mirror' }, set: { type: 'string', default: 'all' }, 'write-blind': { type: 'boolean', default: false }, 'blind-notes': { type: 'string' }, 'audited-at': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  });
} catch (e) {
  console.error(`${e.message}\n\n${USAGE}`);
  process.exit(2);
}
const opt = parsed.values;
if (opt.help) { console.log(USAGE); process.exit(0); }
const SET_IDS = ALL_SETS.map((x) => x.id);
if (![...SET_IDS, 'all'].includes(opt.set)) { console.error(`--set must be ${SET_IDS.join(', ')} or all, not ${opt.set}`); process.exit(2); }
if (opt.write && opt.set !== 'all') { console.error('--write regenerates every figure: it needs --set all'); process.exit(2); }
if (opt['write-blind'] && !ALL_SETS.find((x) => x.id === opt.set)?.frozen) { console.error('--write-blind freezes one blind set: give --set with a frozen set (heldout, blind2 … blind24)'); process.exit(2); }

const allCorpora = JSON.parse(fs.readFileSync(path.join(HERE, 'corpora.json'), 'utf8'));
for (const c of allCorpora) if (!SET_IDS.includes(setOf(c))) { console.error(`corpora.json: ${c.name}: unknown set ${setOf(c)}`); process.exit(2); }
const SETS = ALL_SETS.filter((x) => opt.set === 'all' || opt.set === x.id);
const corpora = allCorpora.filter((c) => SETS.some((x) => x.id === setOf(c)));
const corpusRoot = path.resolve(opt.corpus ?? process.env.TASKWRIGHT_CORPUS_DIR ?? path.join(ROOT, 'bench/.corpus'));
const cli = path.join(ROOT, 'bin/taskwright.js');
if (!fs.existsSync(path.join(ROOT, 'dist/cli.js'))) { console.error('dist/cli.js is missing: run `npm run build` first'); process.exit(2); }

function corpusDir(c) {
  const dir = path.join(corpusRoot, c.name);
  if (fs.existsSync(dir)) return dir;
  const gitDir = path.join(opt.mirror, c.name, 'repo');
  const out = path.join(ROOT, 'bench/.corpus', c.name);
  if (fs.existsSync(out)) return out;
  if (!fs.existsSync(gitDir)) throw new Error(`corpus ${c.name}: neither ${dir} nor a mirror at ${gitDir}; fetch ${c.repo} first`);
  console.error(`laying out ${c.name} from ${gitDir} …`);
  // `extractPaths`: a dataset repository registered by a sample of its task folders is laid out only there.
  const r = spawnSync(process.execPath, [path.join(HERE, 'extract.mjs'), gitDir, out, ...(c.extractPaths ? c.paths : [])], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`corpus ${c.name}: extract.mjs failed`);
  return out;
}

function auditCorpus(c, dir) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cli, 'audit', ...c.paths, '--format', 'json', '--fail-on', 'never'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = []; const err = [];
    p.stdout.on('data', (d) => out.push(d));
    p.stderr.on('data', (d) => err.push(d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) { reject(new Error(`audit of ${c.name} exited ${code}: ${Buffer.concat(err).toString().slice(0, 2000)}`)); return; }
      try { resolve(JSON.parse(Buffer.concat(out).toString('utf8'))); } catch (e) { reject(new Error(`audit of ${c.name}: output is not JSON: ${e.message}`)); }
    });
  });
}

function cliMtime() {
  return fs.statSync(path.join(ROOT, 'dist/cli.js')).mtimeMs;
}

function absentSet(dir) {
  try { return new Set(fs.readFileSync(path.join(dir, '.absent-files'), 'utf8').split('\n').filter(Boolean)); } catch { return new Set(); }
}

async function runAudits(dirs) {
  const results = new Array(corpora.length);
  let next = 0;
  const t0 = Date.now();
  const worker = async () => {
    while (next < corpora.length) {
      const i = next++;
      const c = corpora[i];
      const s = Date.now();
      const json = await auditCorpus(c, dirs[i]);
      const absent = absentSet(dirs[i]);
      const tasks = []; const findings = [];
      for (const t of json.tasks) {
        const task = t.path.replace(/^\.\//, '');
        tasks.push(task);
        for (const f of t.findings) {
          if (f.file && absent.has(`${task}/${f.file}`)) continue; // an absent blob says nothing about the task
          findings.push({ corpus: c.name, task, rule: f.rule, severity: f.severity, class: f.class, file: f.file, line: f.line, message: f.message });
        }
      }
      results[i] = { corpus: c.name, cliMtime: cliMtime(), tasks, findings };
      console.error(`audited ${c.name}: ${tasks.length} tasks, ${findings.length} findings in ${((Date.now() - s) / 1000).toFixed(1)} s`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Number(opt.jobs) || 1) }, worker));
  return { results, seconds: (Date.now() - t0) / 1000 };
}

async function main() {
  const dirs = corpora.map(corpusDir);
  let audit;
  const cached = fs.existsSync(CACHE) ? JSON.parse(fs.readFileSync(CACHE, 'utf8')) : null;
  const have = (c) => cached?.results.find((r) => r.corpus === c.name);
  if (opt.reuse && cached && corpora.every(have)) {
    audit = { ...cached, results: corpora.map(have) };
    console.error(`reusing the audit of ${audit.date} from ${path.relative(ROOT, CACHE)}`);
    // The cache says nothing once the rules change: warn when the CLI was rebuilt since.
    if (audit.results.some((r) => (r.cliMtime ?? audit.cliMtime) !== cliMtime())) console.error('warning: dist/cli.js changed since that audit; rerun without --reuse after a rule change');
  } else {
    // The machine is shared: the wall time means little without the load average it ran under.
    const loadBefore = os.loadavg()[0];
    const r = await runAudits(dirs);
    audit = { date: new Date().toISOString(), seconds: r.seconds, load: [loadBefore, os.loadavg()[0]], cliMtime: cliMtime(), results: r.results };
    // Keep the other set's cached results so `--set heldout` does not discard the dev audit.
    const kept = (cached?.results ?? []).filter((x) => !corpora.some((c) => c.name === x.corpus)).map((x) => ({ cliMtime: cached.cliMtime, ...x }));
    fs.mkdirSync(path.dirname(CACHE), { recursive: true });
    fs.writeFileSync(CACHE, JSON.stringify({ ...audit, results: [...r.results, ...kept] }));
  }
  const dirOf = new Map(corpora.map((c, i) => [c.name, dirs[i]]));
  const readLine = lineReader();
  const fpOf = (f) => {
    if (!f.file || f.line == null) return null;
    const text = readLine(path.join(dirOf.get(f.corpus), f.task, f.file), f.line);
    return text == null ? null : fingerprint(text);
  };
  const logicalAt = logicalLineStart();
  // A location's logical line (commands continued with a backslash are one place), for recall matching.
  const logical = (x, line) => logicalAt(path.join(dirOf.get(x.corpus), x.task, x.file), line);
  const allLabels = loadLabels(path.join(HERE, 'labels'));
  const only = opt.rules ? new Set(opt.rules.split(',').map((s) => s.trim()).filter(Boolean)) : null;

  const results = [];
  for (const set of SETS) {
    const cs = corpora.filter((c) => setOf(c) === set.id);
    const names = new Set(cs.map((c) => c.name));
    const inSet = (x) => names.has(x.corpus);
    const setAudit = { ...audit, results: audit.results.filter(inSet) };
    const findings = setAudit.results.flatMap((r) => r.findings);
    const byKey = new Map();
    for (const f of findings) if (!byKey.has(findingKey(f))) byKey.set(findingKey(f), f);
    const labels = { findings: allLabels.findings.filter(inSet), defects: allLabels.defects.filter(inSet), clean: allLabels.clean.filter(inSet), files: [...new Set([...allLabels.findings, ...allLabels.defects, ...allLabels.clean].filter(inSet).map((l) => l.source))].sort() };
    const join = joinFindingLabels(labels.findings, byKey, fpOf);
    const sample = precisionSample(findings, SEED, set.size);
    // The task sample comes from the files (task.toml / task.yaml folders), not from the audit's loader.
    const tasksByCorpus = Object.fromEntries(cs.map((c) => [c.name, c.paths.flatMap((p) => listTaskFolders(dirOf.get(c.name), p))]));
    const tasks = taskSample(tasksByCorpus, SEED, set.target);
    const stats = computeStats({ corpora: cs, audit: setAudit, findings, labels, join, sample, tasks, tasksByCorpus, fpOf, sampleSource: set.source, cleanAnywhere: set.cleanAnywhere, logical });
    stats.set = { id: set.id, title: set.title, size: set.size, target: set.target, source: set.source, frozen: set.frozen };
    console.log(`\n== ${set.title} ==`);
    printReport(stats, only);
    results.push({ set, stats, sample, join, findings });
  }

  // The sample, task and recall files take one set: the one asked for, else dev.
  const one = results.find((x) => x.set.id === (opt.set === 'all' ? 'dev' : opt.set));
  if (opt['sample-out']) {
    const rows = [];
    for (const [k, members] of one.sample) {
      const [rule, severity] = k.split('\u0000');
      if (only && !only.has(rule)) continue;
      for (const f of members) if (!one.join.verdicts.has(findingKey(f))) rows.push({ corpus: f.corpus, task: f.task, rule, severity, file: f.file, line: f.line, fp: fpOf(f), message: f.message });
    }
    fs.writeFileSync(opt['sample-out'], JSON.stringify(rows, null, 2) + '\n');
    console.error(`wrote ${rows.length} unlabelled ${one.set.id} sample members to ${opt['sample-out']}`);
  }
  if (opt['tasks-out']) {
    fs.writeFileSync(opt['tasks-out'], JSON.stringify(one.stats.recall.sampleTasks, null, 2) + '\n');
    console.error(`wrote the ${one.stats.recall.sampleTasks.length}-task ${one.set.id} recall sample to ${opt['tasks-out']}`);
  }
  if (opt['recall-out']) {
    // Each labelled defect with whether (and by which rules) a warning or error finding found it,
    // plus the loud findings of the sampled tasks, so a reader can see what the audit missed.
    const st = one.stats;
    const inSample = new Set(st.recall.sampleTasks.map((t) => `${t.corpus}/${t.task}`));
    const loud = one.findings.filter((f) => (f.severity === 'error' || f.severity === 'warning') && inSample.has(`${f.corpus}/${f.task}`))
      .map((f) => ({ corpus: f.corpus, task: f.task, rule: f.rule, severity: f.severity, class: f.class, file: f.file, line: f.line }));
    fs.writeFileSync(opt['recall-out'], JSON.stringify({ defects: [...st.recall.random.rows, ...st.recall.known.rows], findings: loud }, null, 2) + '\n');
    console.error(`wrote the ${one.set.id} recall join to ${opt['recall-out']}`);
  }
  if (opt['write-blind']) {
    // --blind-notes FILE: a JSON array of the reader's notes (judgement calls, matching caveats), frozen with the figures.
    const notes = opt['blind-notes'] ? JSON.parse(fs.readFileSync(opt['blind-notes'], 'utf8')) : [];
    writeBlind(results.find((x) => x.set.id === opt.set).stats, ROOT, notes, opt['audited-at']);
  }
  if (opt.write) writeOutputs(results.map((x) => x.stats), ROOT);
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
