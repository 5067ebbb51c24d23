import type { BandThresholds } from '../../src/core/band/types';
import { BANDS } from '../../src/core/band/types';
import { BAND_LABELS } from '../../src/core/bandview/classify';
import type { HistogramBin } from '../../src/core/bandview/histogram';
import { esc, n, svg, unitTicksX } from './svg';

const H = 200, PAD = { l: 40, r: 12, t: 34, b: 26 };

/** Success-rate histogram stacked by band, with the zones and the two threshold lines drawn on it. */
export function histogramSvg(bins: readonly HistogramBin[], max: number, t: BandThresholds, width: number, label: string): string {
  const w = Math.max(220, width);
  const x = (v: number): number => PAD.l + v * (w - PAD.l - PAD.r);
  const y = (c: number): number => H - PAD.b - (max > 0 ? (c / max) * (H - PAD.t - PAD.b) : 0);
  let body = '';
  // Zones behind the bars say where each band lies at the current thresholds.
  body += `<rect class="zone zone-too-hard" x="${n(x(0))}" y="${PAD.t}" width="${n(x(t.low) - x(0))}" height="${H - PAD.t - PAD.b}"/>`;
  body += `<rect class="zone zone-in-band" x="${n(x(t.low))}" y="${PAD.t}" width="${n(x(t.high) - x(t.low))}" height="${H - PAD.t - PAD.b}"/>`;
  body += `<rect class="zone zone-too-easy" x="${n(x(t.high))}" y="${PAD.t}" width="${n(x(1) - x(t.high))}" height="${H - PAD.t - PAD.b}"/>`;
  for (const bin of bins) {
    let acc = 0;
    const x0 = x(bin.from) + 1, bw = Math.max(1, x(bin.to) - x(bin.from) - 2);
    for (const b of BANDS) {
      const c = bin.byBand[b];
      if (!c) continue;
      body += `<rect class="band-${b}" x="${n(x0)}" y="${n(y(acc + c))}" width="${n(bw)}" height="${n(y(acc) - y(acc + c))}"><title>${c} ${BAND_LABELS[b]} at ${Math.round(bin.from * 100)}–${Math.round(bin.to * 100)}%</title></rect>`;
      acc += c;
    }
    if (bin.total) body += `<text class="bin-count" x="${n(x0 + bw / 2)}" y="${n(y(bin.total) - 4)}" text-anchor="middle">${bin.total}</text>`;
  }
  body += unitTicksX(x, H - PAD.b);
  body += `<text class="tick" x="${PAD.l - 6}" y="${n(y(max) + 4)}" text-anchor="end">${max}</text>`;
  body += `<text class="tick" x="${PAD.l - 6}" y="${n(y(0))}" text-anchor="end">0</text>`;
  for (const [v, name] of [[t.low, 'low'], [t.high, 'high']] as const) {
    body += `<line class="threshold" x1="${n(x(v))}" x2="${n(x(v))}" y1="${PAD.t - 14}" y2="${H - PAD.b}"/>`;
    const anchor = v < 0.1 ? 'start' : v > 0.9 ? 'end' : 'middle';
    body += `<text class="threshold-label" x="${n(x(v))}" y="${PAD.t - 18}" text-anchor="${anchor}">${esc(name)} ${Math.round(v * 100)}%</text>`;
  }
  // Wide invisible handles over the lines: drag them to move the thresholds (the sliders do the same by keyboard).
  for (const [v, name] of [[t.low, 'low'], [t.high, 'high']] as const) {
    body += `<rect class="threshold-handle" data-threshold="${name}" x="${n(x(v) - 7)}" y="${PAD.t - 30}" width="14" height="${H - PAD.b - PAD.t + 30}"><title>drag to move the ${name} threshold</title></rect>`;
  }
  return svg(w, H, label, body, 'histogram').replace('<svg ', `<svg data-x0="${n(x(0))}" data-x1="${n(x(1))}" data-w="${n(w)}" `);
}
