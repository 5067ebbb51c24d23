// The trial viewer's browser entry (dist/trialWebview.js). Data arrives only by message after the
// `ready` handshake; the selected step is kept with setState so a hidden or restored panel comes back
// where the reader was. Keys: j / ↓ next step, k / ↑ previous, Home / End, o or Enter opens the
// selected step in an editor.
import { parseTrialHostMessage, type TrialViewState, type TrialWebviewToHost } from '../../src/core/protocol/trialPanel';
import type { TrialView } from '../../src/core/trials/model';
import { el, header, logSection, stepCard, verifierSection } from './render';

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

class TrialApp {
  private view: TrialView | undefined;
  private selected = 0;

  constructor(private readonly root: HTMLElement, private readonly api: VsCodeApi) {}

  post(msg: TrialWebviewToHost): void {
    this.api.postMessage(msg);
  }

  receive(raw: unknown): void {
    const msg = parseTrialHostMessage(raw);
    if (!msg) return;
    if (msg.type === 'error') {
      this.root.replaceChildren(el('p', { class: 'error' }, msg.message));
      return;
    }
    const saved = (this.api.getState() ?? {}) as TrialViewState;
    const sameTrial = saved.dir === msg.view.dir;
    this.view = msg.view;
    const want = msg.step ?? (sameTrial ? saved.step : undefined) ?? (msg.view.steps.length ? 1 : 0);
    this.selected = Math.min(Math.max(want, msg.view.steps.length ? 1 : 0), msg.view.steps.length);
    this.render();
  }

  private render(): void {
    const v = this.view;
    if (!v) return;
    const steps = v.steps.length
      ? el('div', { class: 'steps', role: 'list', 'aria-label': 'trajectory steps' }, ...v.steps.map(stepCard))
      : el('p', { class: 'muted' }, v.trajectoryFile ? 'The trajectory holds no steps.' : 'This agent wrote no trajectory (an oracle, nop or program agent): see its log below.');
    const rewards = v.rewards.length
      ? el('section', { class: 'rewards' }, el('h2', {}, 'Reward files'), ...v.rewards.map((r) => el('div', { class: 'field' }, el('span', { class: 'label' }, r.file), el('code', { class: 'value' }, r.text))))
      : undefined;
    this.root.replaceChildren(
      header(v.header, v.source),
      v.notes.length ? el('ul', { class: 'notes' }, ...v.notes.map((n) => el('li', {}, n))) : '',
      v.instruction !== undefined ? el('details', { class: 'instruction' }, el('summary', {}, 'Instruction'), el('div', { class: 'prose' }, v.instruction)) : '',
      el('h2', {}, `Trajectory `, el('span', { class: 'muted' }, `${v.steps.length} step${v.steps.length === 1 ? '' : 's'}${v.trajectoryFile ? ` · ${v.trajectoryFile}` : ''} · j/k or ↑/↓ to move, o to open a step`)),
      steps,
      verifierSection(v.verifier) ?? '',
      rewards ?? '',
      logSection('Build log', v.build) ?? '',
      logSection(v.source === 'harbor' ? 'Trial log' : 'Agent log', v.agentLog) ?? '',
    );
    this.select(this.selected, false);
    this.post({ type: 'rendered', steps: v.steps.length, selected: this.selected, failing: v.verifier?.failing.length ?? 0 });
  }

  select(n: number, scroll = true): void {
    const count = this.view?.steps.length ?? 0;
    if (!count) return;
    this.selected = Math.min(Math.max(1, n), count);
    for (const e of this.root.querySelectorAll('.step.selected')) e.classList.remove('selected');
    const card = this.root.querySelector<HTMLElement>(`#step-${this.selected}`);
    card?.classList.add('selected');
    card?.setAttribute('aria-current', 'step');
    if (scroll && card) {
      card.scrollIntoView({ block: 'nearest' });
      card.focus({ preventScroll: true });
    }
    const state: TrialViewState = { ...(this.view ? { dir: this.view.dir } : {}), step: this.selected };
    this.api.setState(state);
    this.post({ type: 'state', state });
  }

  onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || !this.view) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
    const count = this.view.steps.length;
    switch (e.key) {
      case 'j': case 'ArrowDown': this.select(this.selected + 1); break;
      case 'k': case 'ArrowUp': this.select(this.selected - 1); break;
      case 'Home': this.select(1); break;
      case 'End': this.select(count); break;
      case 'o': case 'Enter':
        if (t?.tagName === 'BUTTON' || t?.tagName === 'SUMMARY') return;
        if (this.view.steps[this.selected - 1]?.kind === 'command') this.post({ type: 'open-step', step: this.selected });
        break;
      default: return;
    }
    e.preventDefault();
  }

  onClick(e: MouseEvent): void {
    const t = e.target as HTMLElement | null;
    const file = t?.closest<HTMLElement>('[data-open-file]')?.dataset.openFile;
    if (file) {
      e.preventDefault();
      this.post({ type: 'open-file', file });
      return;
    }
    const step = t?.closest<HTMLElement>('[data-open-step]')?.dataset.openStep;
    if (step) {
      this.post({ type: 'open-step', step: Number(step) });
      return;
    }
    const card = t?.closest<HTMLElement>('.step');
    if (card?.dataset.step) this.select(Number(card.dataset.step), false);
  }
}

declare global {
  interface Window { trialPanel?: TrialApp }
}

function start(): void {
  const root = document.getElementById('app');
  if (!root || typeof acquireVsCodeApi !== 'function') return;
  const app = new TrialApp(root, acquireVsCodeApi());
  window.trialPanel = app;
  window.addEventListener('message', (e: MessageEvent) => app.receive(e.data));
  window.addEventListener('keydown', (e) => app.onKey(e));
  root.addEventListener('click', (e) => app.onClick(e));
  app.post({ type: 'ready' });
}

start();
