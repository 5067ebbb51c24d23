import type { ScatterPoint } from '../../src/core/bandview/pairing';
import { esc, n, svg, unitTicksX, unitTicksY } from './svg';


/**
 * Model A's success rate (x) against model B's (y), one bubble per distinct point, area ∝ tasks.
 * Bubbles holding tasks whose band differs between the two models are highlighted; each bubble is a
 * button that narrows the table to its tasks.
 */
export function scatterSvg(points: readonly ScatterPoint[], width: number, nameA: string, nameB: string): string {
  const size = Math.max(200, Math.min(width, 440));
  const maxR = Math.max(6, Math.min(26, size / 16));
  // Room for a full bubble at 100% and 0% on both axes.
  const PAD = { l: 52 + maxR, r: maxR + 4, t: maxR + 4, b: 40 + maxR };
  const plot = size - PAD.l - PAD.r;
  const x = (v: number): number => PAD.l + v * plot;
  const y = (v: number): number => PAD.t + (1 - v) * plot;
  const H = PAD.t + plot + PAD.b;
  const maxCount = Math.max(1, ...points.map((p) => p.ids.length));
  let body = unitTicksY(y, PAD.l - maxR, x(1)) + unitTicksX(x, y(0) + maxR);
  body += `<line class="diagonal" x1="${n(x(0))}" y1="${n(y(0))}" x2="${n(x(1))}" y2="${n(y(1))}"/>`;
  body += `<text class="axis-title" x="${n(x(0.5))}" y="${n(H - 6)}" text-anchor="middle">${esc(nameA)}</text>`;
  body += `<text class="axis-title" transform="translate(11 ${n(y(0.5))}) rotate(-90)" text-anchor="middle">${esc(nameB)}</text>`;
  // Big bubbles first so small ones stay visible and clickable on top.
  const sorted = [...points].sort((p, q) => q.ids.length - p.ids.length);
  for (const p of sorted) {
    const r = Math.max(3, Math.sqrt(p.ids.length / maxCount) * maxR);
    const cls = p.differs > 0 ? 'bubble differs' : 'bubble';
    const label = `${p.ids.length} task${p.ids.length === 1 ? '' : 's'}: ${Math.round(p.a * 100)}% for ${nameA}, ${Math.round(p.b * 100)}% for ${nameB}${p.differs ? `; ${p.differs} change band` : ''}`;
    body += `<circle class="${cls}" cx="${n(x(p.a))}" cy="${n(y(p.b))}" r="${n(r)}" tabindex="0" role="button" data-point="${n(p.a)},${n(p.b)}" aria-label="${esc(label)}"><title>${esc(label)}</title></circle>`;
  }
  return svg(size, H, `success rate per task, ${nameA} against ${nameB}`, body, 'scatter');
}
