// The blind readings taken together (issue 11): each held-out set's first measurement, frozen before
// any rule was changed for it, pooled; and a test of one way to set severities from them. Computed
// from the frozen files alone, so the section reads the same whenever it is regenerated.
import { wilson } from './lib.mjs';

const f2 = (x) => (x == null ? '—' : x.toFixed(2));
const ci = (c) => (c ? `[${c.low.toFixed(2)}, ${c.high.toFixed(2)}]` : '');

/**
 * The severity a rule would get from blind evidence `[true, labelled]` at `severity`: an error stays
 * an error only while the Wilson upper bound reaches 0.97, a warning (or a demoted error) only while it
 * reaches 0.90; otherwise a note.
 */
export function cappedSeverity(severity, t, n) {
  const hi = wilson(t, n)?.high ?? 1;
  if (severity === 'error' && hi >= 0.97) return 'error';
  return hi >= 0.90 ? 'warning' : 'info';
}

/**
 * Leave one set out: caps derived from the other sets' blind figures, applied to the set left out.
 * Returns per set and pooled [true, labelled] at error and warning, before and after the caps.
 */
export function leaveOneSetOut(blinds) {
  const ids = Object.keys(blinds);
  const rows = [];
  const pooled = { before: { error: [0, 0], warning: [0, 0] }, after: { error: [0, 0], warning: [0, 0] } };
  for (const id of ids) {
    const evidence = new Map();
    for (const other of ids.filter((x) => x !== id)) {
      for (const r of blinds[other].rules ?? []) {
        if (!r.labelled) continue;
        const k = `${r.rule}\u0000${r.severity}`;
        const e = evidence.get(k) ?? [0, 0];
        e[0] += r.true; e[1] += r.labelled;
        evidence.set(k, e);
      }
    }
    const before = { error: [0, 0], warning: [0, 0] };
    const after = { error: [0, 0], warning: [0, 0] };
    for (const r of blinds[id].rules ?? []) {
      if (!r.labelled || (r.severity !== 'error' && r.severity !== 'warning')) continue;
      before[r.severity][0] += r.true; before[r.severity][1] += r.labelled;
      const e = evidence.get(`${r.rule}\u0000${r.severity}`);
      const sev = e ? cappedSeverity(r.severity, e[0], e[1]) : r.severity;
      if (sev === 'info') continue;
      after[sev][0] += r.true; after[sev][1] += r.labelled;
    }
    rows.push({ id, before, after });
    for (const w of ['before', 'after']) for (const s of ['error', 'warning']) { pooled[w][s][0] += (w === 'before' ? before : after)[s][0]; pooled[w][s][1] += (w === 'before' ? before : after)[s][1]; }
  }
  return { rows, pooled };
}

const frac = ([t, n]) => `${t}/${n} = ${f2(n ? t / n : null)}`;

/** The section's lines: pooled blind figures, then the leave-one-set-out test of severity caps. */
export function blindSummaryMd(blinds, titles) {
  const ids = Object.keys(blinds);
  if (ids.length === 0) return [];
  const sum = (get) => ids.reduce((a, id) => { const [t, n] = get(blinds[id]); return [a[0] + t, a[1] + n]; }, [0, 0]);
  const err = sum((b) => [b.totals.error.true, b.totals.error.labelled]);
  const warn = sum((b) => [b.totals.warning.true, b.totals.warning.labelled]);
  const rec = sum((b) => [b.recall.found, b.recall.defects]);
  const L = ['## All blind readings together', ''];
  L.push(`${ids.length} held-out sets, each measured once before any rule was changed for it (the frozen sections below): the figures that say what the audit does on tasks nobody tuned it on.`, '');
  L.push('| figure | ' + ids.map((id) => titles[id] ?? id).join(' | ') + ' | pooled | Wilson 95% | goal |', '|---|' + ids.map(() => '---:').join('|') + '|---:|---|---|');
  const line = (name, get, pooledTN, goal) => L.push(`| ${name} | ${ids.map((id) => frac(get(blinds[id]))).join(' | ')} | **${frac(pooledTN)}** | ${ci(wilson(pooledTN[0], pooledTN[1]))} | ${goal} |`);
  line('error precision', (b) => [b.totals.error.true, b.totals.error.labelled], err, '≥ 0.97');
  line('warning precision', (b) => [b.totals.warning.true, b.totals.warning.labelled], warn, '≥ 0.90');
  line('recall', (b) => [b.recall.found, b.recall.defects], rec, '≥ 0.70');
  const { rows, pooled } = leaveOneSetOut(blinds);
  L.push('', '### Severity from blind evidence, tested by leaving one set out', '');
  L.push('One way to reach the precision goals would be to let each rule\'s blind record set its severity: an error stays an error only while the Wilson upper bound of its pooled blind precision reaches 0.97, a warning only while it reaches 0.90, otherwise it becomes a note. Tested fairly, the caps come from the other sets and are applied to the set left out:', '');
  L.push('| set left out | errors before | errors after | warnings before | warnings after |', '|---|---:|---:|---:|---:|');
  for (const r of rows) L.push(`| ${titles[r.id] ?? r.id} | ${frac(r.before.error)} | ${frac(r.after.error)} | ${frac(r.before.warning)} | ${frac(r.after.warning)} |`);
  L.push(`| pooled | ${frac(pooled.before.error)} | ${frac(pooled.after.error)} | ${frac(pooled.before.warning)} | ${frac(pooled.after.warning)} |`);
  L.push('', 'The caps do not carry over: most false findings of a new set come from rules (or causes) the earlier sets never saw false, so a record built on past sets does not predict them. Severities are therefore not set this way; each false finding a blind reading shows is fixed at its cause instead, and the rule pages and hovers show each rule\'s blind figure beside its in-sample one.', '');
  return L;
}
