/** String-built SVG: one innerHTML per chart is faster than thousands of createElementNS calls. */

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]!);
}

/** A number for an SVG attribute: short, and never NaN. */
export function n(x: number): string {
  return Number.isFinite(x) ? String(Math.round(x * 10) / 10) : '0';
}

export function pct(x: number | null, digits = 0): string {
  return x === null ? '–' : `${(x * 100).toFixed(digits)}%`;
}

export function svg(width: number, height: number, label: string, body: string, cls = ''): string {
  return `<svg class="chart ${cls}" viewBox="0 0 ${n(width)} ${n(height)}" width="${n(width)}" height="${n(height)}" role="img" aria-label="${esc(label)}">${body}</svg>`;
}

/** Horizontal axis ticks at 0, 25, 50, 75, 100 % for a [0,1] scale. */
export function unitTicksX(x: (v: number) => number, y0: number, cls = 'axis'): string {
  let out = `<line class="${cls}" x1="${n(x(0))}" x2="${n(x(1))}" y1="${n(y0)}" y2="${n(y0)}"/>`;
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    out += `<line class="${cls}" x1="${n(x(t))}" x2="${n(x(t))}" y1="${n(y0)}" y2="${n(y0 + 4)}"/>`;
    out += `<text class="tick" x="${n(x(t))}" y="${n(y0 + 15)}" text-anchor="middle">${t * 100}%</text>`;
  }
  return out;
}

export function unitTicksY(y: (v: number) => number, x0: number, grid?: number): string {
  let out = `<line class="axis" x1="${n(x0)}" x2="${n(x0)}" y1="${n(y(0))}" y2="${n(y(1))}"/>`;
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    if (grid !== undefined && t > 0) out += `<line class="grid" x1="${n(x0)}" x2="${n(grid)}" y1="${n(y(t))}" y2="${n(y(t))}"/>`;
    out += `<text class="tick" x="${n(x0 - 6)}" y="${n(y(t) + 4)}" text-anchor="end">${t * 100}%</text>`;
  }
  return out;
}
