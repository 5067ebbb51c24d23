import type { TrendSeries } from '../../src/core/bandview/trend';
import { esc, n, pct, svg, unitTicksY } from './svg';

const H = 210, PAD = { l: 44, r: 34, t: 22, b: 34 };

/** Mean pass@k per checkpoint, one line per model, interval shaded, saturation marked. */
export function trendSvg(series: readonly TrendSeries[], width: number, saturationLevel: number, k: number): string {
  const w = Math.max(240, width);
  const steps = series.flatMap((s) => s.points.map((p) => p.step));
  const lo = Math.min(...steps), hi = Math.max(...steps);
  const x = (v: number): number => PAD.l + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (w - PAD.l - PAD.r);
  const y = (v: number): number => PAD.t + (1 - v) * (H - PAD.t - PAD.b);
  let body = unitTicksY(y, PAD.l, w - PAD.r);
  body += `<line class="saturation-level" x1="${PAD.l}" x2="${n(w - PAD.r)}" y1="${n(y(saturationLevel))}" y2="${n(y(saturationLevel))}"/>`;
  body += `<text class="tick" x="${n(w - PAD.r)}" y="${n(y(saturationLevel) - 4)}" text-anchor="end">saturation ${pct(saturationLevel)}</text>`;
  series.forEach((s, si) => {
    const cls = `series-${si % 6}`;
    const pts = s.points.filter((p) => p.meanPassAtK !== null);
    const withI = pts.filter((p) => p.interval !== null);
    if (withI.length > 1) {
      const upper = withI.map((p) => `${n(x(p.step))},${n(y(p.interval![1]))}`);
      const lower = withI.map((p) => `${n(x(p.step))},${n(y(p.interval![0]))}`).reverse();
      body += `<polygon class="interval ${cls}" points="${[...upper, ...lower].join(' ')}"/>`;
    }
    if (pts.length > 1) body += `<polyline class="line ${cls}" points="${pts.map((p) => `${n(x(p.step))},${n(y(p.meanPassAtK!))}`).join(' ')}"/>`;
    for (const p of pts) {
      body += `<circle class="dot ${cls}" cx="${n(x(p.step))}" cy="${n(y(p.meanPassAtK!))}" r="3.5"><title>${esc(s.model)} @ ${esc(p.checkpoint)}: mean pass@${k} ${pct(p.meanPassAtK, 1)}</title></circle>`;
    }
    if (s.saturatedFrom !== null) {
      const p = s.points[s.saturatedFrom]!;
      body += `<line class="saturation ${cls}" x1="${n(x(p.step))}" x2="${n(x(p.step))}" y1="${PAD.t}" y2="${H - PAD.b}"/>`;
      const right = x(p.step) > w / 2;
      body += `<text class="saturation-label" x="${n(x(p.step) + (right ? -4 : 4))}" y="${PAD.t - 6 + si * 12}" text-anchor="${right ? 'end' : 'start'}">${esc(s.model)} saturated from ${esc(p.checkpoint)}</text>`;
    }
  });
  const labelled = new Map<number, string>();
  for (const s of series) for (const p of s.points) if (!labelled.has(p.step)) labelled.set(p.step, p.checkpoint);
  // Thin the labels so they never overlap: about one per 70 px.
  const every = Math.max(1, Math.ceil(labelled.size / Math.max(1, (w - PAD.l - PAD.r) / 70)));
  let li = 0;
  for (const [step, label] of labelled) if (li++ % every === 0) body += `<text class="tick" x="${n(x(step))}" y="${H - PAD.b + 15}" text-anchor="middle">${esc(label)}</text>`;
  body += `<text class="axis-title" x="${n(w / 2)}" y="${H - 3}" text-anchor="middle">checkpoint</text>`;
  return svg(w, H, `mean pass@${k} per checkpoint`, body, 'trend');
}
