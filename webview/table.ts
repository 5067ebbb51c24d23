import type { Band, TaskBandRow } from '../src/core/band/types';
import { BAND_LABELS } from '../src/core/bandview/classify';
import { emptyColumns, rowAt, type TaskColumns } from '../src/core/bandview/columns';
import { visibleRange } from '../src/core/bandview/table';
import type { SortColumn, SortDir } from '../src/core/protocol/bandPanel';

export const ROW_HEIGHT = 26;

const COLUMNS: readonly { id: SortColumn; title: string; numeric: boolean; help: string }[] = [
  { id: 'id', title: 'Task', numeric: false, help: 'task id (folder name)' },
  { id: 'attempts', title: 'Attempts', numeric: true, help: 'valid attempts (infra errors excluded)' },
  { id: 'successes', title: 'Passed', numeric: true, help: 'successful attempts' },
  { id: 'infraErrors', title: 'Infra', numeric: true, help: 'infrastructure errors: retried, never the agent\'s failure' },
  { id: 'passAt1', title: 'pass@1', numeric: true, help: 'success rate over valid attempts' },
  { id: 'passAtK', title: 'pass@k', numeric: true, help: 'unbiased pass@k, with the Wilson interval of the success rate' },
  { id: 'band', title: 'Band', numeric: false, help: 'band at the current thresholds' },
];

export interface TableHandlers {
  readonly onSort: (column: SortColumn) => void;
  readonly onActivate: (row: TaskBandRow) => void;
  readonly onScroll: (scrollTop: number) => void;
}

const fmt = (v: number | null): string => (v === null ? '–' : `${Math.round(v * 100)}%`);

/**
 * A virtualised grid: only the rows in view (plus a few) exist in the DOM, positioned over a spacer
 * as tall as all rows, so 10,000 tasks cost the same as 30, and a row object is built from the
 * columns only when it is drawn. Keyboard: the viewport takes focus and
 * moves an active row (aria-activedescendant) with the arrows, Page keys, Home/End; Enter or Space
 * activates it (reveals the task).
 */
export class VirtualTable {
  readonly root: HTMLElement;
  private readonly head: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly body: HTMLElement;
  private rows: TaskColumns = emptyColumns();
  private bands: readonly Band[] = [];
  private order: readonly number[] = [];
  private active = 0;
  private frame = 0;
  private k = 2;
  /** Viewport height from a ResizeObserver, so rendering never forces a layout to measure it. */
  private viewportHeight = 0;
  /** Scroll position as of the last scroll event (reading scrollTop mid-render would force a layout). */
  private top = 0;

  constructor(private readonly h: TableHandlers) {
    this.root = document.createElement('div');
    this.root.className = 'vtable';
    this.root.setAttribute('role', 'grid');
    this.head = document.createElement('div');
    this.head.className = 'vt-row vt-head';
    this.head.setAttribute('role', 'row');
    this.head.setAttribute('aria-rowindex', '1');
    this.viewport = document.createElement('div');
    this.viewport.className = 'vt-viewport';
    this.viewport.tabIndex = 0;
    this.viewport.setAttribute('role', 'rowgroup');
    this.viewport.setAttribute('aria-label', 'tasks; arrows move, Enter reveals the task');
    this.spacer = document.createElement('div');
    this.spacer.className = 'vt-spacer';
    this.body = document.createElement('div');
    this.body.className = 'vt-body';
    this.spacer.append(this.body);
    this.viewport.append(this.spacer);
    this.root.append(this.head, this.viewport);
    this.viewport.addEventListener('scroll', () => {
      this.top = this.viewport.scrollTop;
      this.schedule();
      this.h.onScroll(this.top);
    }, { passive: true });
    this.viewport.addEventListener('keydown', (e) => this.onKey(e));
    new ResizeObserver((entries) => {
      const h = Math.round(entries[0]?.contentRect.height ?? 0);
      if (h !== this.viewportHeight) { this.viewportHeight = h; this.schedule(); }
    }).observe(this.viewport);
    this.body.addEventListener('click', (e) => {
      const el = (e.target as Element).closest<HTMLElement>('.vt-row');
      if (!el?.dataset.pos) return;
      this.setActive(Number(el.dataset.pos), false);
      this.activate();
    });
    this.head.addEventListener('click', (e) => {
      const btn = (e.target as Element).closest<HTMLElement>('button[data-col]');
      if (btn) this.h.onSort(btn.dataset.col as SortColumn);
    });
  }

  setSort(column: SortColumn, dir: SortDir): void {
    this.head.innerHTML = COLUMNS.map((c) => {
      const sort = c.id === column ? (dir === 'asc' ? 'ascending' : 'descending') : 'none';
      const arrow = c.id === column ? (dir === 'asc' ? ' ▲' : ' ▼') : '';
      const title = c.id === 'passAtK' ? `pass@${this.k}` : c.title;
      return `<div role="columnheader" class="vt-cell col-${c.id}${c.numeric ? ' num' : ''}" aria-sort="${sort}"><button data-col="${c.id}" title="${c.help}; sort">${title}${arrow}</button></div>`;
    }).join('');
  }

  setData(rows: TaskColumns, bands: readonly Band[], order: readonly number[], k: number, resetScroll: boolean): void {
    this.rows = rows;
    this.bands = bands;
    this.order = order;
    this.k = k;
    this.root.setAttribute('aria-rowcount', String(order.length + 1));
    this.spacer.style.height = `${order.length * ROW_HEIGHT}px`;
    if (this.active >= order.length) this.active = Math.max(0, order.length - 1);
    // Writing scrollTop forces a synchronous layout of the whole page: skip it when already at the top.
    if (resetScroll && this.top !== 0) { this.viewport.scrollTop = 0; this.top = 0; }
    this.render();
  }

  get scrollTop(): number { return this.top; }
  set scrollTop(v: number) { this.viewport.scrollTop = v; this.top = this.viewport.scrollTop; this.render(); }
  get visibleCount(): number { return this.body.childElementCount; }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  /** Renders the rows in view; called on scroll (once per frame) and on data changes. */
  render(): void {
    const { start, end } = visibleRange(this.top, this.viewportHeight || 420, ROW_HEIGHT, this.order.length);
    let html = '';
    for (let pos = start; pos < end; pos++) {
      const i = this.order[pos]!;
      // Rows are built from the columns only for what is in view.
      const r = rowAt(this.rows, i);
      const b = this.bands[i]!;
      const interval = r.interval ? ` <span class="interval">[${fmt(r.interval[0])}–${fmt(r.interval[1])}]</span>` : '';
      html += `<div class="vt-row${pos === this.active ? ' active' : ''}" role="row" id="vt-r${pos}" data-pos="${pos}" aria-rowindex="${pos + 2}" aria-selected="${pos === this.active}">`
        + `<div role="gridcell" class="vt-cell col-id" title="${escAttr(r.path)}">${escText(r.id)}</div>`
        + `<div role="gridcell" class="vt-cell num">${r.attempts}</div>`
        + `<div role="gridcell" class="vt-cell num">${r.successes}</div>`
        + `<div role="gridcell" class="vt-cell num${r.infraErrors || r.verifierOom ? ' infra' : ''}"${r.verifierOom ? ` title="${r.verifierOom} verifier OOM: the task's memory limit is too tight for its own verifier"` : ''}>${r.infraErrors}${r.verifierOom ? ` + ${r.verifierOom} OOM` : ''}</div>`
        + `<div role="gridcell" class="vt-cell num">${fmt(r.passAt1)}</div>`
        + `<div role="gridcell" class="vt-cell num col-passAtK">${fmt(r.passAtK)}${interval}</div>`
        + `<div role="gridcell" class="vt-cell col-band"><span class="band-chip band-bg-${b}">${BAND_LABELS[b]}</span></div>`
        + '</div>';
    }
    this.body.style.transform = `translateY(${start * ROW_HEIGHT}px)`;
    this.body.innerHTML = html;
    if (this.order.length > 0) this.viewport.setAttribute('aria-activedescendant', `vt-r${this.active}`);
    else this.viewport.removeAttribute('aria-activedescendant');
  }

  private setActive(pos: number, scroll: boolean): void {
    this.active = Math.max(0, Math.min(this.order.length - 1, pos));
    if (scroll) {
      const top = this.active * ROW_HEIGHT, vh = this.viewportHeight || 420;
      if (top < this.top) this.viewport.scrollTop = this.top = top;
      else if (top + ROW_HEIGHT > this.top + vh) this.viewport.scrollTop = this.top = top + ROW_HEIGHT - vh;
    }
    this.render();
  }

  private activate(): void {
    const i = this.order[this.active];
    if (i !== undefined) this.h.onActivate(rowAt(this.rows, i));
  }

  private onKey(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor((this.viewportHeight || 420) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) this.setActive(this.active + moves[e.key]!, true);
    else if (e.key === 'Home') this.setActive(0, true);
    else if (e.key === 'End') this.setActive(this.order.length - 1, true);
    else if (e.key === 'Enter' || e.key === ' ') this.activate();
    else return;
    e.preventDefault();
  }
}

function escText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
function escAttr(s: string): string {
  return escText(s).replace(/"/g, '&quot;');
}
