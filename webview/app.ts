import { BANDS, type Band, type BandThresholds, type TaskBandRow } from '../src/core/band/types';
import { BAND_LABELS, emptyCounts, successRates } from '../src/core/bandview/classify';
import { emptyColumns, type TaskColumns } from '../src/core/bandview/columns';
import { binRates, suggestedBins } from '../src/core/bandview/histogram';
import { pairModels } from '../src/core/bandview/pairing';
import { queryRows } from '../src/core/bandview/table';
import { checkpointTrends } from '../src/core/bandview/trend';
import { buildReportView, type ReportView } from '../src/core/bandview/view';
import {
  parseHostMessage, sanitizeViewState, type ColumnPanelData, type HostMessage, type PanelViewState, type SortColumn, type SortDir, type WebviewToHost,
} from '../src/core/protocol/bandPanel';
import { barsHtml, legendHtml } from './charts/bars';
import { histogramSvg } from './charts/histogram';
import { scatterSvg } from './charts/scatter';
import { trendSvg } from './charts/trend';
import { $, setOptions, valueOf } from './dom';
import type { HostLink } from './host';
import { LAYOUT } from './layout';
import { answerStatically, exportedText } from './staticHost';
import { VirtualTable } from './table';
import { round2, wireThresholdDrag } from './thresholdDrag';

interface UiState {
  thresholds?: BandThresholds;
  model?: string;
  compareA?: string;
  compareB?: string;
  sort: { column: SortColumn; dir: SortDir };
  filter: string;
  bands: Set<Band>;
  /** Tasks picked in the scatter; the table shows only these until cleared. */
  only?: { ids: Set<string>; label: string };
  scrollTop: number;
}

/** Everything the panel shows, derived from the data and the UI state; re-rendered in parts. */
export class BandApp {
  private data?: ColumnPanelData;
  private view?: ReportView;
  private ui: UiState = freshUi();
  private readonly table: VirtualTable;
  private pending = 0;
  /** Chart widths from the ResizeObserver: reading clientWidth while rendering would force a layout per chart. */
  private readonly widths = new Map<string, number>();
  private saveTimer = 0;
  /** performance.now() when the last data message finished rendering (read by the bench and e2e). */
  lastRenderMs = 0;
  /** Milliseconds spent in each step of the last data message (read by bench/panel.mjs). */
  readonly timings: Record<string, number> = {};

  constructor(root: HTMLElement, private readonly host: HostLink) {
    root.innerHTML = LAYOUT;
    this.table = new VirtualTable({
      onSort: (c) => this.sortBy(c),
      onActivate: (row) => this.reveal(row),
      onScroll: (top) => { this.ui.scrollTop = top; this.saveSoon(); },
    });
    $('table').append(this.table.root);
    this.wire();
    this.restore(sanitizeViewState(host.getState()));
  }

  /** Entry point for every message from the host (already structured-cloned, not yet trusted). */
  receive(raw: unknown): void {
    const t0 = performance.now();
    const msg = parseHostMessage(raw);
    this.timings.validate = performance.now() - t0;
    if (!msg) {
      this.host.post({ type: 'log', level: 'error', message: `band panel: ignored an invalid message (${describe(raw)})` });
      return;
    }
    this.handle(msg);
  }

  private handle(msg: HostMessage): void {
    switch (msg.type) {
      case 'init':
        if (msg.state) this.restore(msg.state);
        this.setData(msg.data, true);
        break;
      case 'update':
        this.setData(msg.data, false);
        break;
      case 'source':
        // Another dataset: the thresholds, filters and selection of the last one would lie about this one.
        this.ui = freshUi();
        this.order = undefined;
        this.setData(msg.data, true);
        break;
      case 'exported':
        this.exportStatus(exportedText(msg.count, msg.file));
        break;
      case 'error':
        if (msg.about === 'export') this.exportStatus(`Export failed: ${msg.message}`, true);
        else this.status(msg.message, true);
        break;
    }
  }

  private restore(s: PanelViewState): void {
    if (s.thresholds) this.ui.thresholds = s.thresholds;
    if (s.model) this.ui.model = s.model;
    if (s.compareA) this.ui.compareA = s.compareA;
    if (s.compareB) this.ui.compareB = s.compareB;
    if (s.sort) this.ui.sort = { ...s.sort };
    if (s.filter !== undefined) this.ui.filter = s.filter;
    if (s.bands) this.ui.bands = new Set(s.bands);
    if (s.scrollTop !== undefined) this.ui.scrollTop = s.scrollTop;
  }

  private setData(data: ColumnPanelData, first: boolean): void {
    this.data = data;
    this.view = this.timed('classify', () => buildReportView(data.report, this.ui.thresholds));
    const keys = this.view.models.map((m) => m.key);
    if (!this.ui.model || !keys.includes(this.ui.model)) this.ui.model = keys[0];
    if (!this.ui.compareA || !keys.includes(this.ui.compareA)) this.ui.compareA = keys[0];
    if (!this.ui.compareB || !keys.includes(this.ui.compareB) || this.ui.compareB === this.ui.compareA) this.ui.compareB = keys.find((k) => k !== this.ui.compareA);
    const where = data.source.length > 64 ? `…${data.source.slice(-63)}` : data.source;
    $('meta').textContent = `${where} · pass@${data.report.k} · ${keys.length} model${keys.length === 1 ? '' : 's'}`;
    $('meta').title = data.source;
    $('live').hidden = !data.live;
    this.renderSelects();
    this.renderAll(first, true);
    if (first && this.ui.scrollTop) this.table.scrollTop = this.ui.scrollTop;
    this.lastRenderMs = performance.now();
    this.saveSoon();
  }

  /** Pending below-the-fold draw of the scatter (see renderAll); a newer data message supersedes it. */
  private belowFold = 0;

  /**
   * With `deferScatter`, the scatter — below the fold, and the costliest chart to pair — is drawn in a
   * task queued after the first frame, so the bars, histogram and table paint first.
   */
  private renderAll(resetScroll: boolean, deferScatter = false): void {
    this.renderThresholdInputs();
    this.timed('bars', () => this.renderModels());
    this.timed('histogram', () => this.renderHistogram());
    this.timed('table', () => this.renderTable(resetScroll));
    this.timed('trend', () => this.renderTrend());
    const token = ++this.belowFold;
    const draw = (): void => { if (token === this.belowFold) this.timed('scatter', () => this.renderCompare()); };
    if (deferScatter) requestAnimationFrame(() => setTimeout(draw, 0));
    else draw();
  }

  private widthOf(id: string, fallback: number): number {
    return this.widths.get(id) ?? fallback;
  }

  private timed<T>(step: string, fn: () => T): T {
    const t = performance.now();
    try {
      return fn();
    } finally {
      this.timings[step] = performance.now() - t;
    }
  }

  private get thresholds(): BandThresholds {
    return this.view?.thresholds ?? { low: 0, high: 1 };
  }

  private selected() {
    return this.view?.models.find((m) => m.key === this.ui.model);
  }

  private renderSelects(): void {
    const opts = (this.view?.models ?? []).map((m) => ({ value: m.key, label: m.key }));
    setOptions($('model'), opts, this.ui.model ?? '');
    setOptions($('cmp-a'), opts, this.ui.compareA ?? '');
    setOptions($('cmp-b'), opts, this.ui.compareB ?? '');
    const bandOpts = [...BANDS.map((b) => ({ value: b, label: BAND_LABELS[b] })), { value: 'all', label: 'all tasks' }];
    const current = valueOf($('export-band')) || 'in-band';
    setOptions($('export-band'), bandOpts, current);
    ($('filter') as unknown as { value: string }).value = this.ui.filter;
  }

  private renderThresholdInputs(): void {
    const t = this.thresholds;
    ($('t-low') as HTMLInputElement).value = String(t.low);
    ($('t-high') as HTMLInputElement).value = String(t.high);
    $('o-low').textContent = `${Math.round(t.low * 100)}%`;
    $('o-high').textContent = `${Math.round(t.high * 100)}%`;
  }

  private renderModels(): void {
    const models = this.view?.models ?? [];
    $('bars').innerHTML = barsHtml(models, this.ui.model ?? '', this.view?.k ?? 2);
    $('legend').innerHTML = legendHtml(this.selected()?.counts ?? emptyCounts(), this.ui.bands);
  }

  private renderHistogram(): void {
    const m = this.selected();
    $('hist-model').textContent = m ? `— ${m.key}` : '';
    if (!m || !this.view) { $('hist').innerHTML = ''; return; }
    const rates = successRates(m.source.tasks);
    const { bins, max, missing } = binRates(rates, m.bands, suggestedBins(this.view.maxAttempts));
    const width = this.widthOf('hist', 480);
    $('hist').innerHTML = histogramSvg(bins, max, this.thresholds, width, `success rate per task for ${m.key}`)
      + (missing ? `<p class="note">${missing} task${missing === 1 ? '' : 's'} without a valid attempt are not shown.</p>` : '');
  }

  /** Display order of the table; kept across threshold moves when neither the sort nor a filter depends on bands. */
  private order: { rows: TaskColumns; idx: number[] } | undefined;

  private renderTable(resetScroll: boolean, reorder = true): void {
    const m = this.selected();
    const rows = m?.source.tasks ?? EMPTY;
    const bands = m?.bands ?? [];
    const keep = !reorder && this.order?.rows === rows;
    const order = keep ? this.order!.idx
      : this.timed('query', () => queryRows(rows, bands, { sort: this.ui.sort, filter: this.ui.filter, bands: [...this.ui.bands], ...(this.ui.only ? { only: this.ui.only.ids } : {}) }));
    this.order = { rows, idx: order };
    this.timed('rows', () => {
      this.table.setSort(this.ui.sort.column, this.ui.sort.dir);
      this.table.setData(rows, bands, order, this.view?.k ?? 2, resetScroll);
    });
    $('table-count').textContent = `${order.length} of ${rows.length}`;
    const only = $('only');
    only.hidden = !this.ui.only;
    only.textContent = this.ui.only ? `${this.ui.only.label} ✕` : '';
  }

  private renderCompare(): void {
    const models = this.view?.models ?? [];
    const A = models.find((m) => m.key === this.ui.compareA);
    const B = models.find((m) => m.key === this.ui.compareB);
    if (!A || !B || A === B) {
      $('scatter').innerHTML = '';
      $('cmp-summary').textContent = models.length < 2 ? 'Run a second model (or checkpoint) on these tasks to compare.' : 'Pick two different models.';
      return;
    }
    const p = pairModels(A, B);
    const width = this.widthOf('scatter', 360);
    $('scatter').innerHTML = scatterSvg(p.points, width, A.key, B.key);
    const extra = p.onlyA || p.onlyB ? ` (${p.onlyA} only in A, ${p.onlyB} only in B)` : '';
    $('cmp-summary').innerHTML = `<b class="differs-text">${p.differing}</b> of ${p.paired} shared tasks change band${extra}. Highlighted bubbles hold them; click one to list its tasks.`;
  }

  private renderTrend(): void {
    const series = this.data ? checkpointTrends(this.data.report) : [];
    if (series.length === 0) {
      $('trend').innerHTML = '<p class="empty">No checkpoints in these results. Record runs with <code>--checkpoint LABEL</code> to see mean pass@k per training step.</p>';
      return;
    }
    const width = this.widthOf('trend', 480);
    $('trend').innerHTML = trendSvg(series, width, series[0]!.rule.meanAbove, this.view?.k ?? 2)
      + `<div class="legend">${series.map((s, i) => `<span class="chip static"><span class="swatch series-${i % 6}"></span>${escapeHtml(s.model)}</span>`).join('')}</div>`;
  }

  // ---- interactions ------------------------------------------------------------------------------

  private wire(): void {
    const onThreshold = (which: 'low' | 'high') => (e: Event): void => {
      const v = Number((e.target as HTMLInputElement).value);
      const t = { ...this.thresholds };
      t[which] = v;
      // Keep low < high by pushing the other handle rather than refusing the move.
      if (t.low >= t.high) { if (which === 'low') t.high = Math.min(1, round2(v + 0.05)); else t.low = Math.max(0, round2(v - 0.05)); }
      this.setThresholds(t);
    };
    $('t-low').addEventListener('input', onThreshold('low'));
    $('t-high').addEventListener('input', onThreshold('high'));
    $('t-reset').addEventListener('click', () => this.setThresholds(undefined));
    $('bars').addEventListener('click', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('.model-row');
      const seg = (e.target as Element).closest<SVGElement>('rect[data-band]');
      if (!row?.dataset.model) return;
      if (seg?.dataset.band) this.ui.bands = new Set([seg.dataset.band as Band]);
      this.selectModel(row.dataset.model);
    });
    $('bars').addEventListener('keydown', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('.model-row');
      if (row?.dataset.model && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); this.selectModel(row.dataset.model); }
    });
    $('legend').addEventListener('click', (e) => {
      const chip = (e.target as Element).closest<HTMLElement>('button[data-band]');
      if (!chip) return;
      const b = chip.dataset.band as Band;
      if (this.ui.bands.has(b)) this.ui.bands.delete(b); else this.ui.bands.add(b);
      this.renderModels();
      this.renderTable(true);
      this.saveSoon();
    });
    $('model').addEventListener('change', (e) => this.selectModel(valueOf(e.target as Element)));
    $('filter').addEventListener('input', (e) => {
      this.ui.filter = valueOf(e.target as Element);
      this.schedule(() => this.renderTable(true));
      this.saveSoon();
    });
    $('only').addEventListener('click', () => { delete this.ui.only; this.renderTable(true); });
    for (const [id, key] of [['cmp-a', 'compareA'], ['cmp-b', 'compareB']] as const) {
      $(id).addEventListener('change', (e) => { this.ui[key] = valueOf(e.target as Element); this.renderCompare(); this.saveSoon(); });
    }
    const pickBubble = (target: Element): void => {
      const c = target.closest<SVGElement>('circle[data-point]');
      if (!c?.dataset.point) return;
      this.pickPoint(c.dataset.point);
    };
    $('scatter').addEventListener('click', (e) => pickBubble(e.target as Element));
    $('scatter').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pickBubble(e.target as Element); }
    });
    wireThresholdDrag($('hist'), () => this.thresholds, (t) => this.setThresholds(t));
    $('export-json').addEventListener('click', () => this.exportBand('json'));
    $('export-text').addEventListener('click', () => this.exportBand('text'));
    let resizeTimer = 0;
    const charts = new ResizeObserver((entries) => {
      let changed = false;
      for (const e of entries) {
        const w = Math.round(e.contentRect.width);
        if (w > 0 && w !== this.widths.get(e.target.id)) { this.widths.set(e.target.id, w); changed = true; }
      }
      if (!changed || !this.data) return;
      clearTimeout(resizeTimer);
      resizeTimer = window.setTimeout(() => { this.renderHistogram(); this.renderCompare(); this.renderTrend(); }, 80);
    });
    for (const id of ['hist', 'scatter', 'trend']) charts.observe($(id));
  }

  /** Coalesces bursts (slider drags, typing) into one render per animation frame. */
  private schedule(fn: () => void): void {
    cancelAnimationFrame(this.pending);
    this.pending = requestAnimationFrame(() => { this.pending = 0; fn(); });
  }

  setThresholds(t: BandThresholds | undefined): void {
    if (!this.data) return;
    this.ui.thresholds = t;
    this.view = buildReportView(this.data.report, t);
    this.renderThresholdInputs();
    // Re-sorting 10,000 rows is only needed when the order depends on the bands that just changed.
    const reorder = this.ui.sort.column === 'band' || this.ui.bands.size > 0;
    this.schedule(() => {
      this.renderModels();
      this.renderHistogram();
      this.renderTable(false, reorder);
      this.renderCompare();
    });
    this.saveSoon();
  }

  private selectModel(key: string): void {
    if (!this.view?.models.some((m) => m.key === key)) return;
    this.ui.model = key;
    ($('model') as unknown as { value: string }).value = key;
    this.renderModels();
    this.renderHistogram();
    this.renderTable(true);
    this.saveSoon();
  }

  private sortBy(column: SortColumn): void {
    const same = this.ui.sort.column === column;
    this.ui.sort = { column, dir: same && this.ui.sort.dir === 'asc' ? 'desc' : same ? 'asc' : column === 'id' ? 'asc' : 'desc' };
    this.renderTable(true);
    this.saveSoon();
  }

  private pickPoint(point: string): void {
    const A = this.view?.models.find((m) => m.key === this.ui.compareA);
    const B = this.view?.models.find((m) => m.key === this.ui.compareB);
    if (!A || !B) return;
    const [a, b] = point.split(',').map(Number);
    const p = pairModels(A, B).points.find((q) => Math.abs(q.a - a!) < 0.051 && Math.abs(q.b - b!) < 0.051);
    if (!p) return;
    this.ui.only = { ids: new Set(p.ids), label: `${p.ids.length} tasks at ${Math.round(p.a * 100)}% vs ${Math.round(p.b * 100)}%` };
    if (this.ui.model !== A.key) this.selectModel(A.key); else this.renderTable(true);
    this.status(`Showing the ${p.ids.length} tasks of that bubble in the table (model ${A.key}).`);
  }

  private reveal(row: TaskBandRow): void {
    if (!this.ui.model) return;
    this.host.post({ type: 'reveal-task', model: this.ui.model, taskId: row.id });
  }

  private exportBand(format: 'json' | 'text'): void {
    if (!this.ui.model) return;
    const band = (valueOf($('export-band')) || 'in-band') as Band | 'all';
    this.exportStatus('');
    this.host.post({ type: 'export', model: this.ui.model, band, format, thresholds: this.thresholds });
  }

  /** The static report's stand-in for the host: reveal shows the path, export downloads a file. */
  staticHost(msg: WebviewToHost): void {
    const done = answerStatically(msg, this.data?.report, this.selected()?.source.tasks);
    if (done?.export) this.exportStatus(done.export); else if (done?.status) this.status(done.status);
  }

  /** The export's outcome, next to its buttons: where the file went, or why it did not. */
  private exportStatus(text: string, error = false): void {
    const s = $('export-status');
    s.textContent = text;
    s.title = text;
    s.classList.toggle('error', error);
  }

  private status(text: string, error = false): void {
    const s = $('status');
    s.textContent = text;
    s.classList.toggle('error', error);
  }

  private saveSoon(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => {
      const state: PanelViewState = {
        ...(this.data ? { source: this.data.source } : {}),
        ...(this.ui.thresholds ? { thresholds: this.ui.thresholds } : {}),
        ...(this.ui.model ? { model: this.ui.model } : {}),
        ...(this.ui.compareA ? { compareA: this.ui.compareA } : {}),
        ...(this.ui.compareB ? { compareB: this.ui.compareB } : {}),
        sort: this.ui.sort, filter: this.ui.filter, bands: [...this.ui.bands], scrollTop: this.ui.scrollTop,
      };
      this.host.setState(state);
      if (this.host.inVsCode) this.host.post({ type: 'state', state });
    }, 150);
  }

  /** Counts per band currently shown for a model (for tests driving the page). */
  countsOf(key?: string): Readonly<Record<Band, number>> | undefined {
    return this.view?.models.find((m) => m.key === (key ?? this.ui.model))?.counts;
  }
}

const EMPTY = emptyColumns();

function freshUi(): UiState {
  return { sort: { column: 'id', dir: 'asc' }, filter: '', bands: new Set(), scrollTop: 0 };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function describe(v: unknown): string {
  if (typeof v === 'object' && v !== null && 'type' in v) return `type ${String((v as { type: unknown }).type).slice(0, 40)}`;
  return typeof v;
}
