// Prints the accuracy bench's figures and, with --write, regenerates bench/ACCURACY.md,
// src/core/audit/precision.json and the measured-precision line of each docs/rules page (the line's
// text comes from the core's precisionNote, the same function the editor's hover uses).
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { blindSummaryMd } from './blindSummary.mjs';
import { MIN_PER_CORPUS, SEED, SETS, wilson } from './lib.mjs';

const f2 = (x) => (x == null ? '—' : x.toFixed(2));
const ci = (c) => (c ? `[${c.low.toFixed(2)}, ${c.high.toFixed(2)}]` : '');
const pct = (x) => (x == null ? '—' : `${(100 * x).toFixed(0)}%`);

export function printReport(s, only) {
  const rows = s.rows.filter((r) => !only || only.has(r.rule));
  const w = Math.max(28, ...rows.map((r) => r.rule.length));
  console.log(`${'rule'.padEnd(w)} sev      findings  tasks  sample  labelled  true  precision  wilson95      unlabelled  stale  gone`);
  for (const r of rows) {
    console.log(`${r.rule.padEnd(w)} ${r.severity.padEnd(8)} ${String(r.findings).padStart(8)}  ${String(r.tasks).padStart(5)}  ${String(r.sampled ?? '-').padStart(6)}  ${String(r.labelled).padStart(8)}  ${String(r.true).padStart(4)}  ${f2(r.precision).padStart(9)}  ${ci(r.ci).padEnd(12)}  ${String(r.unlabelled ?? '-').padStart(10)}  ${String(r.stale).padStart(5)}  ${String(r.gone).padStart(4)}`);
  }
  for (const [sev, t] of Object.entries(s.totals)) {
    console.log(`${sev}: ${t.findings} findings in ${t.rules} rule(s); labelled ${t.labelled} sample members of ${t.rulesMeasured} rule(s): pooled precision ${f2(t.pooled)} ${ci(t.ci)}, weighted by findings ${f2(t.weighted)} (over ${t.findingsCovered} findings)`);
  }
  const r = s.recall;
  console.log(`task sample: ${r.sampleTasks.length} tasks (seed ${SEED}), ${r.read} read and labelled in ${s.set?.source ?? 'core.json'}`);
  console.log(`recall (random sample): ${r.random.found}/${r.random.defects} = ${f2(r.random.recall)} ${ci(r.random.ci)}; with info findings ${r.random.foundWithInfo}/${r.random.defects}`);
  for (const [c, x] of Object.entries(r.random.byClass)) console.log(`  ${c}: ${x.found}/${x.defects} = ${f2(x.recall)} ${ci(x.ci)}`);
  console.log(`recall (known defects, outside the sample): ${r.known.found}/${r.known.defects} = ${f2(r.known.recall)}`);
  console.log(`clean tasks with any warning or error: ${r.clean.loud}/${r.clean.tasks} = ${f2(r.clean.share)} ${ci(r.clean.ci)}`);
  if (s.stale.length) console.log(`stale labels (line changed): ${s.stale.length}`);
  if (s.gone.length) console.log(`labels whose finding is no longer reported: ${s.gone.length}`);
  if (s.conflicts.length) console.log(`conflicting verdicts: ${s.conflicts.length}`);
}

/**
 * src/core/audit/precision.json: per rule, per error/warning severity, the measured figures, pooled
 * over the sets (dev and held-out samples are disjoint: their counts add); and, apart, the blind
 * figures: each held-out set's first measurement (its frozen file), before any rule was changed for
 * it, pooled over the sets that sampled the rule at that severity: what the rule did on tasks nobody
 * had tuned it on.
 */
function precisionData(sets, blinds = {}) {
  const pooled = new Map();
  for (const s of sets) {
    for (const r of s.rows) {
      if (r.severity === 'info') continue;
      const k = `${r.rule}\u0000${r.severity}`;
      const p = pooled.get(k) ?? { rule: r.rule, severity: r.severity, findings: 0, tasks: 0, sampled: 0, labelled: 0, true: 0 };
      p.findings += r.findings; p.tasks += r.tasks; p.sampled += r.sampled ?? 0; p.labelled += r.labelled; p.true += r.true;
      pooled.set(k, p);
    }
  }
  const rules = {};
  for (const p of [...pooled.values()].sort((a, b) => a.rule.localeCompare(b.rule) || a.severity.localeCompare(b.severity))) {
    const c = wilson(p.true, p.labelled);
    (rules[p.rule] ??= []).push({
      severity: p.severity, findings: p.findings, tasks: p.tasks, sampled: p.sampled, labelled: p.labelled, true: p.true,
      precision: c ? +c.p.toFixed(3) : null, low: c ? +c.low.toFixed(3) : null, high: c ? +c.high.toFixed(3) : null,
    });
  }
  const blind = {};
  const pooledBlind = new Map();
  for (const [id, b] of Object.entries(blinds)) {
    for (const r of b.rules ?? []) {
      if (!r.labelled) continue;
      const k = `${r.rule}\u0000${r.severity}`;
      const p = pooledBlind.get(k) ?? { rule: r.rule, severity: r.severity, labelled: 0, true: 0, sets: [] };
      p.labelled += r.labelled; p.true += r.true; p.sets.push(id);
      pooledBlind.set(k, p);
    }
  }
  for (const p of [...pooledBlind.values()].sort((a, b) => a.rule.localeCompare(b.rule) || a.severity.localeCompare(b.severity))) {
    const c = wilson(p.true, p.labelled);
    (blind[p.rule] ??= []).push({ severity: p.severity, labelled: p.labelled, true: p.true, sets: p.sets.length, precision: +c.p.toFixed(3), low: +c.low.toFixed(3), high: +c.high.toFixed(3) });
  }
  return { version: 1, seed: SEED, date: sets[0]?.date ?? null, source: 'bench/ACCURACY.md', rules, blind };
}

/** A blind set after the first: its heading, the sentence its frozen section opens with, and its "after" section. */
function laterBlind(id, ordinal, before) {
  return {
    heading: `${ordinal} held-out (blind)`, after: `${ordinal} held-out after later fixes (no longer blind)`,
    what: `before any rule was changed after reading these corpora, and on corpora no rule was tuned on (${before}): out-of-sample figures`,
    afterText: `The same ${ordinal.toLowerCase()} held-out corpora, samples and labels after rule changes made since its blind reading: a check that the fixes hold, not an out-of-sample figure. Findings that entered the sample after the fixes were judged then (their \`why\` starts "[post-fix sample, not blind]" in \`labels/${id}.json\`); "gone" counts blind labels whose finding the fixed rules no longer report.`,
  };
}

// How each frozen (blind) set is titled and introduced in ACCURACY.md. The held-out text is the one
// the first blind reading was published with; keep it as is.
const BLIND_SETS = {
  heldout: {
    heading: 'Held-out (blind)', after: 'Held-out after the fixes (no longer blind)', what: 'before any rule was changed after reading these corpora: out-of-sample figures',
    afterText: 'The same held-out corpora, samples and labels after rule changes made from what the blind reading found: a check that the fixes hold, not an out-of-sample figure. Findings that entered the sample after the fixes were judged then (their `why` starts "[post-fix sample, not blind]" in `labels/heldout.json`); "gone" counts blind labels, mostly the false positives, whose finding the fixed rules no longer report.',
  },
  blind2: laterBlind('blind2', 'Second', 'the first held-out set had been used to fix rules by then'),
  blind3: laterBlind('blind3', 'Third', 'the first two held-out sets had been used to fix rules by then'),
  blind4: laterBlind('blind4', 'Fourth', 'the first three held-out sets had been used to fix rules by then'),
  blind5: laterBlind('blind5', 'Fifth', 'the first four held-out sets had been used to fix rules by then, the fourth in the same session'),
  blind6: laterBlind('blind6', 'Sixth', 'the first five held-out sets had been used to fix rules by then'),
  blind7: laterBlind('blind7', 'Seventh', 'the first six held-out sets had been used to fix rules by then, the sixth in the same session'),
  blind8: laterBlind('blind8', 'Eighth', 'the first seven held-out sets had been used to fix rules by then, the sixth and seventh in the same session'),
  blind9: laterBlind('blind9', 'Ninth', 'the first eight held-out sets had been used to fix rules by then'),
  blind10: laterBlind('blind10', 'Tenth', 'the first nine held-out sets had been used to fix rules by then'),
  blind11: laterBlind('blind11', 'Eleventh', 'the first ten held-out sets had been used to fix rules by then, the tenth in the same session'),
  blind12: laterBlind('blind12', 'Twelfth', 'the first eleven held-out sets had been used to fix rules by then, the tenth and eleventh in the same session'),
  blind13: laterBlind('blind13', 'Thirteenth', 'the first twelve held-out sets had been used to fix rules by then, their pooled misses in the same session'),
  blind14: laterBlind('blind14', 'Fourteenth', 'the first thirteen held-out sets had been used to fix rules by then, the thirteenth in the same session'),
  blind15: laterBlind('blind15', 'Fifteenth', 'the first fourteen held-out sets had been used to fix rules by then, the thirteenth and fourteenth in the same session'),
  blind16: laterBlind('blind16', 'Sixteenth', 'the first fifteen held-out sets had been used to fix rules by then'),
  blind17: laterBlind('blind17', 'Seventeenth', 'the first sixteen held-out sets had been used to fix rules by then'),
  blind18: laterBlind('blind18', 'Eighteenth', 'the first seventeen held-out sets had been used to fix rules by then, the sixteenth and seventeenth in the same session'),
  blind19: laterBlind('blind19', 'Nineteenth', 'the first eighteen held-out sets had been used to fix rules by then, the sixteenth to eighteenth in the same session'),
  blind20: laterBlind('blind20', 'Twentieth', 'the first nineteen held-out sets had been used to fix rules by then, the sixteenth to nineteenth in the same session'),
  blind21: laterBlind('blind21', 'Twenty-first', 'the first twenty held-out sets had been used to fix rules by then'),
  blind22: laterBlind('blind22', 'Twenty-second', 'the first twenty-one held-out sets had been used to fix rules by then'),
  blind23: laterBlind('blind23', 'Twenty-third', 'the first twenty-two held-out sets had been used to fix rules by then'),
  blind24: laterBlind('blind24', 'Twenty-fourth', 'the first twenty-three held-out sets had been used to fix rules by then'),
};
const frozenPath = (set) => `bench/accuracy/${set.frozen}`;

/** A set's figures as first measured, before any rule change: frozen in its file (heldout-blind.json, blind2-blind.json, blind3-blind.json). */
export function blindData(s, commit) {
  const r = s.recall;
  return {
    version: 1, set: s.set.id, note: 'Held-out figures measured blind: rules unchanged since the corpora were first read. Never regenerate after a rule change.',
    seed: SEED, date: s.date, auditedAt: commit, precisionSample: s.set.size, taskTarget: s.set.target, labels: `labels/${s.set.source}`,
    corpora: s.corpora.map((c) => ({ repo: c.repo, commit: c.commit, paths: c.paths, tasks: c.tasks, audited: c.audited, findings: c.findings, loudTasks: c.loudTasks, sampled: c.sampled })),
    totals: s.totals,
    rules: s.rows.filter((x) => x.severity !== 'info').map((x) => ({ rule: x.rule, severity: x.severity, findings: x.findings, tasks: x.tasks, sampled: x.sampled, labelled: x.labelled, true: x.true, precision: x.precision, ci: x.ci })),
    recall: { tasks: r.sampleTasks.length, read: r.read, defects: r.random.defects, found: r.random.found, foundWithInfo: r.random.foundWithInfo, recall: r.random.recall, ci: r.random.ci, byClass: r.random.byClass },
    clean: { tasks: r.clean.tasks, loud: r.clean.loud, share: r.clean.share, ci: r.clean.ci, loudTasks: r.clean.loudTasks },
  };
}

/**
 * Freezes set `s` (a set with a frozen file): writes the file and puts its section into
 * bench/ACCURACY.md (replacing the previous one between its markers, else before the development
 * section). Refuses to overwrite a frozen file: a blind measurement is taken once.
 */
export function writeBlind(s, root, notes = [], auditedAt = undefined) {
  const rel = frozenPath(s.set);
  const file = path.join(root, rel);
  if (fs.existsSync(file)) throw new Error(`${rel} exists: a blind measurement is frozen once and never regenerated`);
  // The commit whose rules made the audit: HEAD unless the audit was run on an earlier checkout
  // (--audited-at), e.g. when a fix had to land before the figures were written.
  const commit = spawnSync('git', ['rev-parse', auditedAt ?? 'HEAD'], { cwd: root }).stdout.toString().trim();
  if (auditedAt !== undefined && !commit) throw new Error(`--audited-at ${auditedAt}: not a commit of this repository`);
  const data = { ...blindData(s, commit), ...(notes.length ? { notes } : {}) };
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  const md = path.join(root, 'bench/ACCURACY.md');
  if (fs.existsSync(md)) fs.writeFileSync(md, withBlindSection(fs.readFileSync(md, 'utf8'), s.set.id, blindMd(data, s.set)));
  console.error(`wrote ${rel} and its section of bench/ACCURACY.md`);
}

const blindBegin = (id) => `<!-- blind:${id}:begin -->`;
const blindEnd = (id) => `<!-- blind:${id}:end -->`;

/** `md` with set `id`'s blind section (lines) between its markers: replaced if present, else inserted before the development section. */
export function withBlindSection(md, id, lines) {
  const block = [blindBegin(id), ...lines, blindEnd(id)].join('\n');
  const re = new RegExp(`${blindBegin(id)}[\\s\\S]*?${blindEnd(id)}`);
  if (re.test(md)) return md.replace(re, () => block);
  const at = md.indexOf('\n## Development corpora');
  if (at < 0) return `${md.trimEnd()}\n\n${block}\n`;
  return `${md.slice(0, at + 1)}${block}\n\n${md.slice(at + 1)}`;
}

export function blindMd(b, set) {
  const t0 = BLIND_SETS[set.id] ?? { heading: `${set.title} (blind)`, what: 'before any rule was changed after reading these corpora' };
  const L = [];
  L.push(`## ${t0.heading}`, '');
  L.push(`Measured on ${b.date} with the rules of commit \`${b.auditedAt.slice(0, 12)}\`, ${t0.what}. Frozen in [\`accuracy/${set.frozen}\`](accuracy/${set.frozen}); seed **${b.seed}**, precision stratum ${b.precisionSample} per (rule, severity), task sample ceil(${b.taskTarget} × share) per corpus (at least ${MIN_PER_CORPUS}); labels in \`${b.labels}\`.`, '');
  L.push('| corpus | commit | paths | tasks | findings | tasks with a warning or error | in task sample |', '|---|---|---|---:|---:|---:|---:|');
  for (const c of b.corpora) L.push(`| ${c.repo} | \`${c.commit.slice(0, 12)}\` | ${c.paths.map((p) => `\`${p}\``).join(' ')} | ${c.tasks} | ${c.findings} | ${c.loudTasks} (${pct(c.audited ? c.loudTasks / c.audited : null)}) | ${c.sampled} |`);
  L.push('', '| figure | value | Wilson 95% | goal |', '|---|---:|---|---|');
  const t = b.totals;
  L.push(`| error precision | ${t.error.true}/${t.error.labelled} = **${f2(t.error.pooled)}** | ${ci(t.error.ci)} | ≥ 0.97 |`);
  L.push(`| warning precision | ${t.warning.true}/${t.warning.labelled} = **${f2(t.warning.pooled)}** | ${ci(t.warning.ci)} | ≥ 0.90 |`);
  L.push(`| recall (random task sample, ${b.recall.read} tasks read) | ${b.recall.found}/${b.recall.defects} = **${f2(b.recall.recall)}** | ${ci(b.recall.ci)} | ≥ 0.70 |`);
  L.push(`| clean tasks with any warning or error | ${b.clean.loud}/${b.clean.tasks} = **${f2(b.clean.share)}** | ${ci(b.clean.ci)} | ≤ 0.10 |`);
  L.push('', '| rule | severity | findings | labelled | true | precision |', '|---|---|---:|---:|---:|---:|');
  for (const x of b.rules) L.push(`| \`${x.rule}\` | ${x.severity} | ${x.findings} | ${x.labelled} | ${x.true} | ${f2(x.precision)} |`);
  L.push('');
  for (const n of b.notes ?? []) L.push(`- ${n}`);
  if (b.notes?.length) L.push('');
  return L;
}

/** The sections of one corpus set (dev or held-out) under headings of level `h`. */
function setMd(s, h) {
  const L = [];
  const r = s.recall;
  L.push(`${h} Corpora`, '', 'Real public tasks, read from fetched snapshots (never copied into this repository); `bench/accuracy/corpora.json`.', '');
  L.push('| corpus | commit | paths | tasks | audited | findings | tasks with a warning or error | in task sample |', '|---|---|---|---:|---:|---:|---:|---:|');
  for (const c of s.corpora) L.push(`| ${c.repo} | \`${c.commit.slice(0, 12)}\` | ${c.paths.map((p) => `\`${p}\``).join(' ')} | ${c.tasks} | ${c.audited} | ${c.findings} | ${c.loudTasks} (${pct(c.audited ? c.loudTasks / c.audited : null)}) | ${c.sampled} |`);
  L.push('', `${h} Method`, '');
  L.push(`- Seed **${SEED}**. Precision sample: per (rule, severity) at error or warning, findings ordered by \`sha256(seed:corpus/task/file:line:rule)\`, the first ${s.set.size}. Precision = true / labelled sample members; the Wilson 95% interval is shown.`);
  L.push(`- Task sample (recall, clean quietness): per corpus, task folders (holding task.toml / task.yaml, found from the files) ordered by \`sha256(seed:corpus/task)\`, the first ceil(${s.set.target} × share), at least ${MIN_PER_CORPUS}. Each is read whole, without the audit's findings, and every defect a maintainer would act on is labelled (file, line, class) in \`labels/${s.set.source}\`, or the task is labelled clean.`);
  L.push('- The reader read each sampled task before looking at any finding (long data files by their head) and labelled what a maintainer would act on at warning or error. Judgement calls, stated so they can be disputed: pytest run on `/tests` without `--noconftest` or a verifier-owned ini is a defect (the root agent can put `pytest.ini` or `conftest.py` in `/`, an ancestor of the tests); a base image by tag, installs at test time under TB1\'s always-on network, and the SWE-bench adapter layout are not defects at warning level.');
  L.push('- A defect is found when a warning or error finding of the right class is on its file at its line (±1, or the same command continued over lines), or anywhere in the file for a file-level defect; a file-level finding (no line) finds a defect at line 1 of that file.');
  L.push(`- Labels: ${s.labelFiles.map((f) => `\`labels/${f}\``).join(', ') || 'none'} (${s.labelCounts.findings} judged findings, ${s.labelCounts.defects} defects, ${s.labelCounts.clean} clean tasks). Findings on blobs absent from a snapshot are dropped.`, '');
  L.push(`${h} Precision by severity`, '', '| severity | findings | rules | labelled sample members | pooled precision | Wilson 95% | weighted by findings (over) |', '|---|---:|---:|---:|---:|---|---|');
  for (const [sev, t] of Object.entries(s.totals)) L.push(`| ${sev} | ${t.findings} | ${t.rules} | ${t.labelled} (${t.rulesMeasured} rules) | ${f2(t.pooled)} | ${ci(t.ci)} | ${f2(t.weighted)} (${t.findingsCovered} findings) |`);
  L.push('', `${h} Precision per rule`, '', '| rule | severity | findings | tasks | sampled | labelled | true | precision | Wilson 95% | unlabelled | stale | gone |', '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const x of s.rows) L.push(`| [\`${x.rule}\`](../docs/rules/${x.rule}.md) | ${x.severity} | ${x.findings} | ${x.tasks} | ${x.sampled ?? '–'} | ${x.labelled} | ${x.true} | ${x.severity === 'info' ? 'not sampled' : f2(x.precision)} | ${ci(x.ci)} | ${x.unlabelled ?? '–'} | ${x.stale} | ${x.gone} |`);
  L.push('', '"stale": labels whose line text changed (fingerprint mismatch), not counted; "gone": labels whose finding the audit no longer reports.', '');
  L.push(`${h} Recall on the random task sample`, '');
  L.push(`${r.sampleTasks.length} tasks sampled, **${r.read} read** and labelled. Labelled defects: ${r.random.defects}; found at warning or error: **${r.random.found} = ${f2(r.random.recall)}** ${ci(r.random.ci)}; also counting info findings: ${r.random.foundWithInfo}.`, '');
  L.push('| class | defects | found | recall | Wilson 95% | found incl. info |', '|---|---:|---:|---:|---|---:|');
  for (const [c, x] of Object.entries(r.random.byClass)) L.push(`| ${c} | ${x.defects} | ${x.found} | ${f2(x.recall)} | ${ci(x.ci)} | ${x.foundWithInfo} |`);
  L.push('', '| corpus | defects | found | recall |', '|---|---:|---:|---:|');
  for (const [c, x] of Object.entries(r.random.byCorpus)) L.push(`| ${c.replace('+', '/')} | ${x.defects} | ${x.found} | ${f2(x.recall)} |`);
  L.push('', '| expected rule | defects | found (right class and place) | found by that rule |', '|---|---:|---:|---:|');
  for (const [k, x] of Object.entries(r.random.byRule).sort((a, b) => b[1].defects - a[1].defects)) L.push(`| ${k === '(none)' ? '(no rule fits yet)' : `\`${k}\``} | ${x.defects} | ${x.found} | ${x.byThatRule} |`);
  L.push('', `Known defects (labelled outside the random sample, e.g. by the rules' readers): ${r.known.found}/${r.known.defects} = ${f2(r.known.recall)}.`, '');
  L.push(`${h} Clean tasks stay quiet`, '');
  L.push(`Of the ${r.clean.tasks} sampled tasks read whole and judged clean, **${r.clean.loud} (${f2(r.clean.share)})** get any warning or error ${ci(r.clean.ci)} (goal ≤ 0.10).`, '');
  if (s.outside) {
    L.push(`${h} Outside judgement: terminal-bench-qc \`eval/fixtures\``, '');
    L.push("Its authors label each fixture pass / warn / fail; our verdict is the worst severity the audit reports (error / warning / clean = info or nothing).", '');
    const cols = ['error', 'warning', 'clean'];
    L.push('| theirs \\ ours | error | warning | clean |', '|---|---:|---:|---:|');
    for (const th of ['fail', 'warn', 'pass']) L.push(`| ${th} | ${cols.map((c) => s.outside.filter((x) => x.theirs === th && x.ours === c).length).join(' | ')} |`);
    L.push('', '| fixture | theirs | ours | rules at warning or error |', '|---|---|---|---|');
    for (const x of s.outside) L.push(`| \`${x.task.replace('eval/fixtures/', '')}\` | ${x.theirs} | ${x.ours} | ${x.rules.map((q) => `\`${q}\``).join(', ')} |`);
    L.push('');
  }
  return L;
}

function accuracyMd(sets, blinds) {
  const dev = sets.find((x) => x.set.id === 'dev');
  const L = [];
  L.push('# Audit accuracy on real tasks', '');
  L.push(`Generated by \`npm run build && node bench/accuracy/run.mjs --write\` on ${dev.date} (audit of ${sets.reduce((a, s) => a + s.corpora.reduce((b, c) => b + c.audited, 0), 0)} tasks in ${dev.auditSeconds?.toFixed(0) ?? '?'} s${dev.auditLoad ? `, 1-min load average ${dev.auditLoad.map((x) => x.toFixed(1)).join(' → ')} on ${os.availableParallelism()} cores` : ''}). Do not edit by hand.`, '');
  L.push('Twenty-five corpus sets. **Development** corpora: the rules were tuned on them and their labels, so their figures are in-sample. **Held-out** corpora (`"set": "heldout"` in `corpora.json`): measured blind first (the frozen section below), then used to fix rules, so their later figures are no longer blind either. **Second held-out** corpora (`"set": "blind2"`): read and measured blind once more on corpora no rule was tuned on, frozen the same way. **Third held-out** corpora (`"set": "blind3"`): a third blind reading and measurement, on six more corpora by six authors, frozen the same way. **Fourth held-out** corpora (`"set": "blind4"`): sixteen single-task repositories by sixteen authors, picked in a seeded order from a public listing of `task.toml` repositories, plus Harbor\'s own cookbook (well-kept tasks), read and measured blind the same way. **Fifth held-out** corpora (`"set": "blind5"`): the next eleven single-task repositories of the same seeded order, read and measured blind after the fourth set\'s fixes. **Sixth held-out** corpora (`"set": "blind6"`): twelve repositories by twelve new authors, picked in a seeded order from public listings of repositories named like Harbor or Terminal-Bench tasks, among them a recent Harbor fork\'s own example tasks (separate verifiers, network policies, multi-step), read and measured blind after the fifth set\'s fixes. **Seventh held-out** corpora (`"set": "blind7"`): twelve more repositories by twelve new authors, from a seeded order of the public listing of repositories named like "bench-task" (many of them one assessment\'s log-report task as different candidates wrote it), read and measured blind after the sixth set\'s fixes. **Eighth held-out** corpora (`"set": "blind8"`): the next twelve of the seventh set\'s order, among them a fork of the Terminal-Bench repository whose original tasks take most of the task sample, read and measured blind after the seventh set\'s fixes. **Ninth held-out** corpora (`"set": "blind9"`): twelve repositories by twelve new authors, the last candidates of the seventh set\'s order and then a seeded order of new public listings (repositories named like Terminal-Bench, tbench or Harbor), among them a 3,936-task generated HumanEvalPack dataset, read and measured blind after the eighth set\'s fixes. **Tenth held-out** corpora (`"set": "blind10"`): fourteen single-task repositories by fourteen new authors, a seeded order of the public listings of repositories holding a root `task.toml` or `solution/solve.sh`, every task read, measured blind after the ninth set\'s fixes. **Eleventh held-out** corpora (`"set": "blind11"`): all eight repositories by new authors that hold a task in a seeded order of the public listings of repository names containing "swarmbench" and "rl-env" (among them a 50-task set of whole applications with planted bugs), read and measured blind after the tenth set\'s fixes. **Twelfth held-out** corpora (`"set": "blind12"`): the two repositories by new authors that hold a task in a seeded order of the public listing of repository names containing "rl-task", read and measured blind after the eleventh set\'s fixes. **Thirteenth held-out** corpora (`"set": "blind13"`): the four repositories by new authors whose snapshot could be fetched, of the twelve in the public listing of repositories holding Harbor\'s template task (`tasks/hello-world/task.toml`), in a seeded order, 13 of their 17 tasks read, measured blind after fixes made from the pooled misses of the first twelve sets. **Fourteenth held-out** corpora (`"set": "blind14"`): six single-task repositories by six new authors, a seeded order of the public listing of repositories holding `task/task.toml` (many of them one assessment\'s candidates), every task read, measured blind after the thirteenth set\'s fixes. **Fifteenth held-out** corpora (`"set": "blind15"`): the next six of the fourteenth set\'s order, each registered at its `task/` folder, every task read, measured blind after the fourteenth set\'s fixes. **Sixteenth held-out** corpora (`"set": "blind16"`): the next six of the same order whose snapshot holds a task, each registered at the folder that holds its `task.toml`, every task read, measured blind after the fifteenth set\'s fixes. **Seventeenth held-out** corpora (`"set": "blind17"`): five single-task repositories by five new authors (two of them Terminal-Bench 1 tasks), a seeded order of the first hundred repositories of the public listing of repositories holding `tests/test_outputs.py`, every task read, measured blind after the sixteenth set\'s fixes. **Eighteenth held-out** corpora (`"set": "blind18"`): the four repositories by new authors whose snapshot holds a task, of the public listing of repository names containing "terminalbench" in a seeded order (three Terminal-Bench 1 tasks), every task read, measured blind after the seventeenth set\'s fixes. **Nineteenth held-out** corpora (`"set": "blind19"`): the seventeenth set\'s order continued, the next six single-task repositories by new authors (all of them versions of one assessment\'s log-report task), every task read, measured blind after the eighteenth set\'s fixes. **Twentieth held-out** corpora (`"set": "blind20"`): the same order continued, the next six single-task repositories by new authors (the same assessment\'s task again), every task read, measured blind after the nineteenth set\'s fixes. **Twenty-first held-out** corpora (`"set": "blind21"`): five single-task repositories by five new authors laid out as Terminal-Bench 1 tasks, a seeded order of the first hundred repositories of the public listing of repositories holding a root `task.yaml`, every task read, measured blind after the twentieth set\'s fixes. **Twenty-second held-out** corpora (`"set": "blind22"`): seven single-task repositories by seven new authors (three of them versions of one assessment\'s log-report task), a seeded order of the first hundred repositories of each of the public listings of repositories holding `environment/docker-compose.yaml` and `solution/solve.py`, every task read, measured blind after fixes made from the pooled misses of the first twenty-one sets. **Twenty-third held-out** corpora (`"set": "blind23"`): one repository of 25 Harbor tasks by a new author, the only fetchable task-holding repository of a seeded order of the public listings of repository names containing "snorkel", "tb-task", "-tb-" and "terminal-task", its ten-task sample read, measured blind after the twenty-second set\'s fixes. **Twenty-fourth held-out** corpora (`"set": "blind24"`): a dataset repository read as a sample: 60 task folders, in a seeded order, of the 14,600-task generated Harbor set of PrimeIntellect-ai/research-tasks (`datasets/tmax`), its ten-task sample read, measured blind after the twenty-third set\'s fixes.', '');
  L.push(...blindSummaryMd(blinds, Object.fromEntries(Object.entries(BLIND_SETS).map(([id, b]) => [id, b.heading.replace(' (blind)', '')]))));
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..') }).stdout.toString().trim();
  for (const id of Object.keys(BLIND_SETS)) {
    const blind = blinds[id];
    const live = sets.find((x) => x.set.id === id);
    if (blind) L.push(blindBegin(id), ...blindMd(blind, live?.set ?? { id, frozen: `${id}-blind.json` }), blindEnd(id), '');
    // Until a rule changes after the blind reading (HEAD still the blind commit), the set's figures are the blind ones.
    if (live && blind?.auditedAt !== head) {
      L.push(`## ${BLIND_SETS[id].after}`, '', BLIND_SETS[id].afterText, '');
      L.push(...setMd(live, '###'));
    }
  }
  L.push('## Development corpora (in-sample)', '');
  L.push(...setMd(dev, '###'));
  return `${L.join('\n')}\n`;
}

const BEGIN = '<!-- precision:begin -->';
const END = '<!-- precision:end -->';

/** Puts the generated line after the page's first table (or replaces the previous one). */
export function withPrecisionLine(page, line) {
  const block = `${BEGIN}\n${line}\n${END}`;
  const re = new RegExp(`${BEGIN}[\\s\\S]*?${END}`);
  if (re.test(page)) return page.replace(re, () => block);
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  if (start < 0) return `${page.trimEnd()}\n\n${block}\n`;
  let end = start;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  lines.splice(end, 0, '', block);
  return lines.join('\n');
}

export function writeOutputs(sets, root) {
  const blinds = {};
  for (const set of SETS) {
    const file = set.frozen && path.join(root, frozenPath(set));
    if (file && fs.existsSync(file)) blinds[set.id] = JSON.parse(fs.readFileSync(file, 'utf8'));
  }
  fs.writeFileSync(path.join(root, 'bench/ACCURACY.md'), accuracyMd(sets, blinds));
  const data = precisionData(sets, blinds);
  const jsonFile = path.join(root, 'src/core/audit/precision.json');
  fs.writeFileSync(jsonFile, `${JSON.stringify(data, null, 2)}\n`);
  const require = createRequire(import.meta.url);
  const { precisionNote } = require(path.join(root, 'out/src/core/audit/precision.js'));
  const docs = path.join(root, 'docs/rules');
  let n = 0;
  for (const name of fs.readdirSync(docs).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const file = path.join(docs, name);
    const page = fs.readFileSync(file, 'utf8');
    const next = withPrecisionLine(page, precisionNote(name.slice(0, -3), data));
    if (next !== page) { fs.writeFileSync(file, next); n++; }
  }
  console.error(`wrote bench/ACCURACY.md, src/core/audit/precision.json and ${n} docs/rules page(s)`);
}
