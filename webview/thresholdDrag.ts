import type { BandThresholds } from '../src/core/band/types';

export function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Dragging a threshold line on the histogram moves it in 5 % steps, like the slider. */
export function wireThresholdDrag(hist: HTMLElement, current: () => BandThresholds, set: (t: BandThresholds) => void): void {
  let dragging: 'low' | 'high' | undefined;
  const valueAt = (e: PointerEvent): number | undefined => {
    const svgEl = hist.querySelector('svg');
    if (!svgEl) return undefined;
    const r = svgEl.getBoundingClientRect();
    const scale = Number(svgEl.dataset.w) / r.width;
    const x0 = Number(svgEl.dataset.x0), x1 = Number(svgEl.dataset.x1);
    const v = ((e.clientX - r.left) * scale - x0) / (x1 - x0);
    return Math.round(Math.min(1, Math.max(0, v)) * 20) / 20;
  };
  hist.addEventListener('pointerdown', (e) => {
    const handle = (e.target as Element).closest<SVGElement>('[data-threshold]');
    if (!handle) return;
    dragging = handle.dataset.threshold as 'low' | 'high';
    hist.setPointerCapture(e.pointerId);
    e.preventDefault();
  });
  hist.addEventListener('pointermove', (e) => {
    if (!dragging) return;
    const v = valueAt(e);
    if (v === undefined) return;
    const now = current();
    const t = { ...now };
    if (dragging === 'low') t.low = Math.min(v, round2(t.high - 0.05)); else t.high = Math.max(v, round2(t.low + 0.05));
    if (t.low !== now.low || t.high !== now.high) set(t);
  });
  const stop = (e: PointerEvent): void => {
    if (!dragging) return;
    dragging = undefined;
    if (hist.hasPointerCapture(e.pointerId)) hist.releasePointerCapture(e.pointerId);
  };
  hist.addEventListener('pointerup', stop);
  hist.addEventListener('pointercancel', stop);
}
