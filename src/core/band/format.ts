import type { TimeoutPolicySummary } from '../results/timeoutPolicy';
import { BANDS, type Band, type BandReport, type ModelBandReport, type TaskBandRow } from './types';

/** How the header says what an agent timeout meant (`--timeout-policy`). */
const POLICY_TEXT: Readonly<Record<TimeoutPolicySummary, string>> = {
  fail: 'failed attempts (timeout policy fail)',
  verifier: 'graded by the verifier (timeout policy verifier)',
  mixed: 'mixed (timeout policy mixed: some trials fail on a timeout, some let the verifier decide)',
};

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);
const num3 = (x: number | null | undefined): string => (x === null || x === undefined ? '' : x.toFixed(4));

const BAND_WORDS: Readonly<Record<Band, string>> = { 'too-easy': 'too easy', 'in-band': 'in band', 'too-hard': 'too hard', broken: 'broken', insufficient: 'insufficient' };

/** 9812 → '9,812' without Intl (its first call costs the panel's first frame tens of milliseconds). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Every band's count, none left out: "1 too easy, 3 in band, 2 too hard, 1 broken, 1 insufficient". */
export function bandCountsText(counts: Readonly<Record<Band, number>>, sep = ', '): string {
  return BANDS.map((b) => `${counts[b]} ${BAND_WORDS[b]}`).join(sep);
}

/**
 * A model's mean pass@k and its interval as the band panel shows them: `{ value: '62.1%', interval:
 * '58.0–66.3%' }` (interval empty when there is none), over `scored` tasks (those with all of at least k
 * valid attempts in). The interval is meanPassAtKInterval's, computed with the report.
 */
export function meanPassAtKText(m: Pick<ModelBandReport, 'meanPassAtK' | 'interval'>, scored: number): { readonly value: string; readonly interval: string; readonly tasks: string } {
  return {
    value: pct(m.meanPassAtK),
    interval: m.interval && m.meanPassAtK !== null ? `${(m.interval[0] * 100).toFixed(1)}–${pct(m.interval[1])}` : '',
    tasks: `${thousands(scored)} task${scored === 1 ? '' : 's'}`,
  };
}

function modelTitle(m: ModelBandReport): string {
  return `${m.model}${m.checkpoint !== undefined ? ` @ ${m.checkpoint}` : ''}${m.agent && m.agent !== m.model ? ` (${m.agent})` : ''}`;
}

function taskLine(t: TaskBandRow, k: number): string {
  const extra = [
    t.infraErrors ? `${t.infraErrors} infra` : '',
    t.possiblyInfra ? `${t.possiblyInfra} possibly infra` : '',
    t.verifierOom ? `${t.verifierOom} verifier OOM: memory limit too tight for its verifier` : '',
    t.pending ? 'attempts not all in' : '',
    t.brokenReason ?? '',
  ].filter(Boolean).join('; ');
  return `  ${t.band.padEnd(12)} ${`${t.successes}/${t.attempts}`.padStart(6)}  pass@1 ${pct(t.passAt1).padStart(6)}  pass@${k} ${pct(t.passAtK).padStart(6)}  ${t.id}${extra ? `  (${extra})` : ''}`;
}

/** Human-readable report: per model a summary line, band counts, then one line per task. */
export function renderBandText(report: BandReport, options: { readonly tasks?: boolean } = {}): string {
  const lines: string[] = [];
  const th = report.thresholds;
  lines.push(`pass@${report.k}${th ? `, band on success rate: too hard ≤ ${th.low}, too easy ≥ ${th.high}` : ''}${report.timeoutPolicy ? `; agent timeouts: ${POLICY_TEXT[report.timeoutPolicy]}` : ''}`);
  if (report.models.length === 0) lines.push('no rollout trials found');
  for (const m of report.models) {
    lines.push('');
    const iv = m.interval ? ` [${pct(m.interval[0])}, ${pct(m.interval[1])}]` : '';
    lines.push(`${modelTitle(m)}: mean pass@${report.k} ${pct(m.meanPassAtK)}${iv} over ${m.tasks.filter((t) => t.passAtK !== null).length} task(s); infra errors ${m.infraErrors} (not counted as attempts)${m.timeoutPolicy ? `; timeout policy ${m.timeoutPolicy}` : ''}`);
    lines.push(`  ${BANDS.map((b) => `${b} ${m.counts[b]}`).join(' · ')}`);
    if (options.tasks !== false) for (const t of m.tasks) lines.push(taskLine(t, report.k));
  }
  for (const s of (report.series ?? []).filter((x) => x.points.length > 1)) {
    lines.push('');
    lines.push(`${s.model} over checkpoints: ${s.points.map((p) => `${p.checkpoint} ${pct(p.meanPassAtK)}`).join(' → ')}`);
    lines.push(s.saturated ? `  SATURATED — ${s.reason ?? ''}` : '  not saturated');
  }
  return lines.join('\n');
}

function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One row per (model, checkpoint, task). */
export function renderBandCsv(report: BandReport): string {
  const head = ['model', 'checkpoint', 'task', 'path', 'attempts', 'successes', 'infra_errors', 'possibly_infra', 'pass_at_1', `pass_at_${report.k}`, 'wilson_low', 'wilson_high', 'band', 'pending', 'verifier_oom', 'timeout_policy'];
  const rows = [head.join(',')];
  for (const m of report.models) {
    for (const t of m.tasks) {
      rows.push([
        m.model, m.checkpoint ?? '', t.id, t.path, t.attempts, t.successes, t.infraErrors, t.possiblyInfra ?? 0,
        num3(t.passAt1), num3(t.passAtK), num3(t.interval?.[0]), num3(t.interval?.[1]), t.band, t.pending ? 'yes' : '', t.verifierOom ?? 0, m.timeoutPolicy ?? '',
      ].map(csvCell).join(','));
    }
  }
  return `${rows.join('\n')}\n`;
}
