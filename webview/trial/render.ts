// The trial viewer's DOM, built from the view model with textContent only (nothing the trial holds is
// ever parsed as HTML: outputs and reasoning are the agent's, not ours).
import type { LogView, OutputPart, TrialHeader, TrialStep, TrialView, VerifierView } from '../../src/core/trials/model';

type Child = Node | string | undefined | false;

export function el(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined && c !== false) e.append(c);
  return e;
}

function seconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return '—';
  const n = Math.round(s);
  if (n < 60) return `${n}s`;
  return n < 3600 ? `${Math.floor(n / 60)}m ${String(n % 60).padStart(2, '0')}s` : `${Math.floor(n / 3600)}h ${String(Math.floor((n % 3600) / 60)).padStart(2, '0')}m`;
}

/** pytest's summary lines of failing tests (`FAILED path::name - reason`, `ERROR …`), marked in the verifier output. */
const FAIL_LINE = /^(FAILED|ERROR|XPASS) \S/;

function appendMarked(pre: HTMLElement, text: string): void {
  let plain = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (!FAIL_LINE.test(line)) {
      plain += line;
      continue;
    }
    if (plain) pre.append(plain);
    plain = '';
    pre.append(el('span', { class: 'fail-line' }, line));
  }
  if (plain) pre.append(plain);
}

export function outputPre(parts: readonly OutputPart[], cls = 'output', markFailures = false): HTMLElement {
  const pre = el('pre', { class: cls });
  for (const p of parts) {
    if (p.kind === 'text') {
      if (markFailures) appendMarked(pre, p.text);
      else pre.append(p.text);
    } else pre.append(el('span', { class: 'cut', title: 'cut by the agent or the viewer' }, `[${p.note}]`));
  }
  return pre;
}

function field(label: string, value: string, cls = ''): HTMLElement {
  return el('div', { class: `field ${cls}` }, el('span', { class: 'label' }, label), el('span', { class: 'value' }, value));
}

export function header(h: TrialHeader, source: TrialView['source']): HTMLElement {
  const outcome = h.outcome ?? 'unknown';
  const d = h.durations;
  const fields = [
    field('task', h.task || h.taskId),
    field('agent', h.agent),
    h.model && field('model', h.model),
    h.attempt !== undefined && field('attempt', `#${h.attempt}${h.try && h.try > 1 ? ` try ${h.try}` : ''}`),
    field('reward', h.reward === null ? 'none' : String(h.reward)),
    d && field('durations', `build ${seconds(d.build)} · agent ${seconds(d.agent)} · verifier ${seconds(d.verifier)}`),
    h.usage && field('tokens', `${h.usage.input.toLocaleString('en-US')} in / ${h.usage.output.toLocaleString('en-US')} out${h.usage.cacheRead ? ` · ${h.usage.cacheRead.toLocaleString('en-US')} cached` : ''}`),
    h.costUsd !== undefined && field('cost', `$${h.costUsd.toFixed(4)}`),
    h.steps !== undefined && field('agent steps', String(h.steps)),
    h.agentEnd && field('agent ended', h.agentEnd),
    h.startedAt && field('started', h.startedAt),
    h.infra && field('infra error', `${h.infra.kind}: ${h.infra.message} (not counted against the agent)`, 'warn'),
    h.error && field('error', h.error, 'warn'),
  ];
  return el('header', { class: 'trial-header' },
    el('h1', {}, el('span', { class: `outcome outcome-${outcome}`, 'data-testid': 'outcome' }, outcome), ` ${h.taskId}`, el('span', { class: 'muted' }, ` · ${h.trial}${source === 'harbor' ? ' · Harbor' : ''}`)),
    el('div', { class: 'fields' }, ...fields));
}

function exitBadge(s: TrialStep): HTMLElement | undefined {
  if (s.kind !== 'command') return undefined;
  if (s.timedOut) return el('span', { class: 'badge bad' }, 'timed out');
  if (s.exitCode === null || s.exitCode === undefined) return el('span', { class: 'badge muted' }, 'exit ?');
  return el('span', { class: `badge ${s.exitCode === 0 ? 'ok' : 'bad'}` }, `exit ${s.exitCode}`);
}

const KIND_LABEL: Record<TrialStep['kind'], string> = {
  command: '', message: 'message', 'tool-error': 'tool error', nudge: 'no tool called', user: 'user', system: 'system',
};

export function stepCard(s: TrialStep): HTMLElement {
  const title = el('div', { class: 'step-title' },
    el('span', { class: 'step-no' }, `${s.index}`),
    s.kind === 'command' ? el('code', { class: 'command-line' }, (s.command ?? '').split('\n')[0] ?? '') : el('span', { class: 'kind' }, KIND_LABEL[s.kind]),
    s.tool && s.tool !== 'bash' ? el('span', { class: 'badge muted' }, s.tool) : undefined,
    exitBadge(s),
    s.durationMs !== undefined ? el('span', { class: 'muted' }, `${(s.durationMs / 1000).toFixed(1)}s`) : undefined);
  const body = el('div', { class: 'step-body' },
    s.reasoning ? el('details', { class: 'reasoning' }, el('summary', {}, 'reasoning'), el('div', { class: 'prose' }, s.reasoning)) : undefined,
    s.message ? el('div', { class: 'prose message' }, s.message) : undefined,
    s.kind === 'command' && (s.command ?? '').includes('\n') && (s.command ?? '').trim().includes('\n') ? el('pre', { class: 'command' }, s.command ?? '') : undefined,
    s.error ? el('div', { class: 'error' }, s.error) : undefined,
    s.output ? outputPre(s.output) : undefined,
    s.kind === 'command' ? el('button', { class: 'link', 'data-open-step': String(s.index), title: 'Show the command and its output in an editor (o)' }, 'open in editor') : undefined);
  return el('section', { class: `step step-${s.kind}`, id: `step-${s.index}`, 'data-step': String(s.index), tabindex: '-1' }, title, body);
}

function openButton(file: string): HTMLElement {
  return el('button', { class: 'link', 'data-open-file': file, title: `Open ${file} in an editor` }, file);
}

export function logSection(title: string, log: LogView | undefined, open = false, markFailures = false): HTMLElement | undefined {
  if (!log) return undefined;
  const d = el('details', { class: 'log' }, el('summary', {}, `${title} `, el('span', { class: 'muted' }, `${log.bytes.toLocaleString('en-US')} bytes`), ' ', openButton(log.file)), outputPre(log.parts, 'output', markFailures));
  if (open) d.setAttribute('open', '');
  return d;
}

export function verifierSection(v: VerifierView | undefined): HTMLElement | undefined {
  if (!v) return undefined;
  const failing = new Set(v.failing);
  const tests = v.tests.length
    ? el('ul', { class: 'tests' }, ...v.tests.map((t) => el('li', { class: failing.has(t.name) ? 'test failing' : 'test' }, el('span', { class: `badge ${failing.has(t.name) ? 'bad' : 'ok'}` }, t.status), ` ${t.name}`)))
    : el('p', { class: 'muted' }, 'No pytest summary (`pytest -rA`) in the verifier output.');
  return el('section', { class: 'verifier' },
    el('h2', {}, 'Verifier', v.failing.length ? el('span', { class: 'badge bad', 'data-testid': 'failing-count' }, `${v.failing.length} failing`) : undefined),
    v.verdict ? el('pre', { class: 'verdict' }, v.verdict) : undefined,
    tests,
    logSection('stdout', v.stdout, v.failing.length > 0 || v.tests.length === 0, true) ?? false,
    logSection('stderr', v.stderr && v.stderr.bytes > 0 ? v.stderr : undefined, false, true) ?? false);
}
