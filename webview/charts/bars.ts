import { BANDS, type Band } from '../../src/core/band/types';
import { meanPassAtKText } from '../../src/core/band/format';
import { BAND_LABELS, totalCount, type ClassifiedModel } from '../../src/core/bandview/classify';
import { esc, n } from './svg';

/**
 * One row per model: its label, a 100%-wide stacked bar of tasks per band, the in-band count in large
 * type (the number people come for), mean pass@k with its 95% interval (meanPassAtKInterval, computed
 * with the report: thresholds do not move it), and infra errors in their own pill, never inside the bar.
 * The bar's SVG stretches to the row (viewBox 0..1000, preserveAspectRatio none): no measuring needed.
 */
export function barsHtml(models: readonly ClassifiedModel[], selected: string, k: number): string {
  if (models.length === 0) return '<p class="empty">No results yet.</p>';
  let out = '';
  for (const m of models) {
    const total = totalCount(m.counts);
    let x = 0;
    let rects = '';
    for (const b of BANDS) {
      const c = m.counts[b];
      if (c === 0 || total === 0) continue;
      const w = (c / total) * 1000;
      rects += `<rect class="seg band-${b}" data-band="${b}" x="${n(x)}" y="0" width="${n(w)}" height="20"><title>${c} ${BAND_LABELS[b]}</title></rect>`;
      x += w;
    }
    // The default (`fail`) goes unsaid; a band graded otherwise, or two ways, says so on its row.
    const policy = m.source.timeoutPolicy && m.source.timeoutPolicy !== 'fail' ? m.source.timeoutPolicy : undefined;
    const mean = meanPassAtKText(m.source, m.scored);
    const meanLabel = `mean pass@${k} ${mean.value}${mean.interval ? ` (95% interval ${mean.interval})` : ''} over ${mean.tasks}`;
    const label = `${m.key}: ${BANDS.map((b) => `${m.counts[b]} ${BAND_LABELS[b]}`).join(', ')}; ${meanLabel}; ${m.infraErrors} infra errors${policy ? `; timeout policy ${policy}` : ''}`;
    const inBand = m.counts['in-band'];
    out += `<div class="model-row${m.key === selected ? ' selected' : ''}" role="button" tabindex="0" data-model="${esc(m.key)}" aria-pressed="${m.key === selected}" aria-label="${esc(label)}">`
      + '<span class="model-cell">'
      + `<span class="model-name" title="${esc(m.key)}">${nameHtml(m)}${policy ? `<small class="policy" title="${policy === 'mixed' ? 'some trials count an agent timeout as a failure, some let the verifier decide' : 'agent timeouts graded by the verifier'}"> · timeouts: ${policy}</small>` : ''}</span>`
      + `<span class="mean-pass" title="${esc(`${meanLabel}: the Wilson interval with the tasks' effective sample size`)}">pass@${k} <b>${mean.value}</b>${mean.interval ? ` <span class="iv">[${mean.interval}]</span>` : ''}</span>`
      + '</span>'
      + `<svg class="bar" viewBox="0 0 1000 20" preserveAspectRatio="none" aria-hidden="true">${rects}</svg>`
      + `<span class="big-count band-text-in-band" title="tasks in band">${inBand}<small> in band${total ? ` · ${Math.round((inBand / total) * 100)}%` : ''}</small></span>`
      + `<span class="infra-pill${m.infraErrors ? ' has-infra' : ''}" title="infrastructure errors: retried, never counted as the agent's failures">${m.infraErrors ? `${m.infraErrors} infra error${m.infraErrors === 1 ? '' : 's'}` : 'no infra errors'}</span>`
      + '</div>';
  }
  return out;
}

/** Model, then checkpoint: the checkpoint never truncates (it is what tells the rows of one model apart). */
function nameHtml(m: ClassifiedModel): string {
  const ck = m.source.checkpoint;
  if (ck === undefined || !m.key.startsWith(`${m.source.model} @ `)) return `<span class="m">${esc(m.key)}</span>`;
  return `<span class="m">${esc(m.source.model)}</span><span class="ck">@ ${esc(ck)}${esc(m.key.slice(`${m.source.model} @ ${ck}`.length))}</span>`;
}

/** The legend doubles as the table's band filter: each chip is a toggle button. */
export function legendHtml(counts: Readonly<Record<Band, number>>, active: ReadonlySet<Band>): string {
  return BANDS.map((b) => {
    const on = active.size === 0 || active.has(b);
    return `<button class="chip${on ? '' : ' off'}" data-band="${b}" aria-pressed="${active.has(b)}" title="show only ${BAND_LABELS[b]} tasks (toggle)">`
      + `<span class="swatch band-${b}" aria-hidden="true"></span>${BAND_LABELS[b]} <b>${counts[b]}</b></button>`;
  }).join('');
}
