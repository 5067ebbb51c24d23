// The figures of the accuracy bench, computed from the audit's findings, the labels and the samples
// (run.mjs gathers them; report.mjs prints and writes them).
import { findingKey, wilson } from './lib.mjs';
import { finds } from './labels.mjs';

const SEVERITIES = ['error', 'warning', 'info'];
const RANK = { error: 3, warning: 2, info: 1 };
const loud = (f) => f.severity === 'error' || f.severity === 'warning';
const taskId = (x) => `${x.corpus}/${x.task}`;

function ruleRows(findings, sample, join) {
  const rows = new Map();
  for (const f of findings) {
    const k = `${f.rule}\u0000${f.severity}`;
    if (!rows.has(k)) rows.set(k, { rule: f.rule, severity: f.severity, class: f.class, findings: 0, tasks: new Set() });
    const r = rows.get(k);
    r.findings++;
    r.tasks.add(taskId(f));
  }
  const staleBy = new Map();
  for (const l of join.stale) staleBy.set(l.rule, (staleBy.get(l.rule) ?? 0) + 1);
  const goneBy = new Map();
  for (const l of join.gone) goneBy.set(l.rule, (goneBy.get(l.rule) ?? 0) + 1);
  const out = [];
  for (const [k, r] of rows) {
    const members = sample.get(k) ?? [];
    let t = 0; let fa = 0;
    for (const f of members) {
      const v = join.verdicts.get(findingKey(f));
      if (v?.verdict === 'true') t++; else if (v?.verdict === 'false') fa++;
    }
    const labelled = t + fa;
    out.push({
      rule: r.rule, severity: r.severity, class: r.class, findings: r.findings, tasks: r.tasks.size,
      sampled: r.severity === 'info' ? null : members.length, labelled, true: t, false: fa,
      unlabelled: r.severity === 'info' ? null : members.length - labelled,
      precision: labelled ? t / labelled : null, ci: wilson(t, labelled),
      stale: staleBy.get(r.rule) ?? 0, gone: goneBy.get(r.rule) ?? 0,
    });
  }
  return out.sort((a, b) => RANK[b.severity] - RANK[a.severity] || b.findings - a.findings || a.rule.localeCompare(b.rule));
}

/** Per severity: the pooled sample precision and the estimate weighted by each rule's finding count. */
function severityTotals(rows) {
  const out = {};
  for (const s of ['error', 'warning']) {
    const rs = rows.filter((r) => r.severity === s);
    const t = rs.reduce((a, r) => a + r.true, 0);
    const n = rs.reduce((a, r) => a + r.labelled, 0);
    const measured = rs.filter((r) => r.labelled > 0);
    const w = measured.reduce((a, r) => a + r.findings, 0);
    out[s] = {
      findings: rs.reduce((a, r) => a + r.findings, 0), rules: rs.length, rulesMeasured: measured.length,
      findingsCovered: w, true: t, labelled: n, pooled: n ? t / n : null, ci: wilson(t, n),
      weighted: w ? measured.reduce((a, r) => a + r.precision * r.findings, 0) / w : null,
    };
  }
  return out;
}

function recallOf(defects, findings, logical) {
  const byTask = new Map();
  for (const f of findings) {
    const k = taskId(f);
    if (!byTask.has(k)) byTask.set(k, []);
    byTask.get(k).push(f);
  }
  const rows = defects.map((d) => {
    const fs = byTask.get(taskId(d)) ?? [];
    const hits = fs.filter((f) => finds(f, d, logical));
    return {
      ...d, found: hits.some(loud), foundWithInfo: hits.length > 0,
      rightRule: d.rule != null && hits.some((f) => loud(f) && f.rule === d.rule),
      by: [...new Set(hits.filter(loud).map((f) => f.rule))],
    };
  });
  const summary = (rs) => {
    const k = rs.filter((r) => r.found).length;
    return { defects: rs.length, found: k, foundWithInfo: rs.filter((r) => r.foundWithInfo).length, recall: rs.length ? k / rs.length : null, ci: wilson(k, rs.length) };
  };
  const byClass = {};
  for (const c of ['brittleness', 'misalignment', 'invalidity', 'infra']) {
    const rs = rows.filter((r) => r.class === c);
    if (rs.length) byClass[c] = summary(rs);
  }
  // Per expected rule (null: no rule fits yet): how many the audit found, and how many that rule found.
  const byRule = {};
  for (const r of rows) {
    const k = r.rule ?? '(none)';
    byRule[k] ??= { defects: 0, found: 0, byThatRule: 0 };
    byRule[k].defects++;
    if (r.found) byRule[k].found++;
    if (r.rightRule) byRule[k].byThatRule++;
  }
  const byCorpus = {};
  for (const c of [...new Set(rows.map((r) => r.corpus))].sort()) byCorpus[c] = summary(rows.filter((r) => r.corpus === c));
  return { ...summary(rows), byClass, byRule, byCorpus, rows };
}

function outsideJudgement(corpora, findings, tasksByCorpus) {
  const qc = corpora.find((c) => c.name === 'moodi-mercor+terminal-bench-qc');
  if (!qc) return null;
  const worst = new Map();
  for (const f of findings) {
    if (f.corpus !== qc.name) continue;
    const k = f.task;
    if (!worst.has(k) || RANK[f.severity] > RANK[worst.get(k)]) worst.set(k, f.severity);
  }
  const rows = [];
  for (const task of tasksByCorpus[qc.name] ?? []) {
    const m = /^eval\/fixtures\/(pass|warn|fail)\/([^/]+)$/.exec(task);
    if (!m) continue;
    const w = worst.get(task);
    const ours = w === 'error' ? 'error' : w === 'warning' ? 'warning' : 'clean';
    const rules = [...new Set(findings.filter((f) => f.corpus === qc.name && f.task === task && loud(f)).map((f) => f.rule))].sort();
    rows.push({ task, theirs: m[1], ours, rules });
  }
  return rows;
}

export function computeStats({ corpora, audit, findings, labels, join, sample, tasks, tasksByCorpus, sampleSource = 'core.json', cleanAnywhere = false, logical }) {
  const rows = ruleRows(findings, sample, join);
  const loudTasks = new Set(findings.filter(loud).map(taskId));
  const inSample = new Set(Object.entries(tasks).flatMap(([c, ts]) => ts.map((t) => `${c}/${t}`)));
  // The random-sample reading of a set lives in one label file (core.json for dev, heldout.json, blind2.json and blind3.json for the held-out sets).
  const core = (l) => l.source === sampleSource;
  const read = new Set([...labels.defects, ...labels.clean].filter(core).map(taskId));
  const sampleDefects = labels.defects.filter((d) => core(d) && inSample.has(taskId(d)));
  const knownDefects = labels.defects.filter((d) => !(core(d) && inSample.has(taskId(d))));
  // Held-out: the reader also picks well-kept tasks outside the random sample (cleanAnywhere).
  const cleanSample = labels.clean.filter((c) => core(c) && (cleanAnywhere || inSample.has(taskId(c))));
  const cleanLoud = cleanSample.filter((c) => loudTasks.has(taskId(c)));
  const sampleTasks = Object.entries(tasks).flatMap(([corpus, ts]) => ts.map((task) => ({
    corpus, task, read: read.has(`${corpus}/${task}`),
    clean: cleanSample.some((c) => c.corpus === corpus && c.task === task),
    defects: sampleDefects.filter((d) => d.corpus === corpus && d.task === task).length,
    loud: loudTasks.has(`${corpus}/${task}`),
  })));
  const perCorpus = corpora.map((c) => {
    const r = audit.results.find((x) => x.corpus === c.name);
    const audited = r?.tasks.length ?? 0;
    const loudN = (r?.tasks ?? []).filter((t) => loudTasks.has(`${c.name}/${t}`)).length;
    return { ...c, tasks: tasksByCorpus[c.name]?.length ?? 0, audited, findings: r?.findings.length ?? 0, loudTasks: loudN, sampled: tasks[c.name]?.length ?? 0 };
  });
  return {
    date: new Date().toISOString().slice(0, 10), auditDate: audit.date, auditSeconds: audit.seconds, auditLoad: audit.load,
    labelFiles: labels.files, labelCounts: { findings: labels.findings.length, defects: labels.defects.length, clean: labels.clean.length },
    corpora: perCorpus, rows, totals: severityTotals(rows),
    stale: join.stale, gone: join.gone, conflicts: join.conflicts,
    recall: {
      sampleTasks, read: sampleTasks.filter((t) => t.read).length,
      random: recallOf(sampleDefects, findings, logical), known: recallOf(knownDefects, findings, logical),
      clean: { tasks: cleanSample.length, loud: cleanLoud.length, share: cleanSample.length ? cleanLoud.length / cleanSample.length : null, ci: wilson(cleanLoud.length, cleanSample.length), loudTasks: cleanLoud.map(taskId) },
    },
    outside: outsideJudgement(corpora, findings, tasksByCorpus),
    severities: SEVERITIES,
  };
}
