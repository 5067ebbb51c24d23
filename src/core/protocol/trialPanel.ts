/**
 * The trial viewer's message protocol, shared by the extension host (src/extension/trial) and the
 * webview (webview/trial). Both directions are discriminated unions on `type`; whatever crosses the
 * boundary is checked before it is used (a webview is another process, a restored state may come
 * from an older version).
 *
 * Handshake: the webview posts `ready` once its listener is in place; the host then sends `show`
 * (the trial's view model and the step to select). The webview answers `rendered` after each paint.
 */
import type { TrialView } from '../trials/model';

export const TRIAL_PANEL_VIEW_TYPE = 'taskwright.trialPanel';

/** What the webview keeps with `setState` (and the serializer gives back after a reload). */
export interface TrialViewState {
  /** The trial folder on screen (absolute), read again after a reload. */
  readonly dir?: string;
  /** 1-based index of the selected step. */
  readonly step?: number;
}

export type TrialHostToWebview =
  | { readonly type: 'show'; readonly view: TrialView; readonly step?: number }
  | { readonly type: 'error'; readonly message: string };

export type TrialWebviewToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'state'; readonly state: TrialViewState }
  /** What the webview drew, for the tests and the log: steps, the selection, failing tests shown. */
  | { readonly type: 'rendered'; readonly steps: number; readonly selected: number; readonly failing: number }
  /** Open a file of the trial folder in an editor; relative to the folder, checked by the host. */
  | { readonly type: 'open-file'; readonly file: string }
  /** Show one step's command and output in a read-only shell document. */
  | { readonly type: 'open-step'; readonly step: number }
  | { readonly type: 'log'; readonly level: 'info' | 'error'; readonly message: string };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const whole = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function sanitizeTrialState(v: unknown): TrialViewState {
  if (!isObj(v)) return {};
  return {
    ...(typeof v.dir === 'string' && v.dir.length < 4096 ? { dir: v.dir } : {}),
    ...(whole(v.step) ? { step: v.step } : {}),
  };
}

/** A webview message, checked; undefined when it is not one this host knows. */
export function parseTrialWebviewMessage(v: unknown): TrialWebviewToHost | undefined {
  if (!isObj(v)) return undefined;
  switch (v.type) {
    case 'ready': return { type: 'ready' };
    case 'state': return { type: 'state', state: sanitizeTrialState(v.state) };
    case 'rendered':
      return whole(v.steps) && whole(v.selected) && whole(v.failing) ? { type: 'rendered', steps: v.steps, selected: v.selected, failing: v.failing } : undefined;
    case 'open-file':
      // A relative path without `..` segments; the host checks it again against the trial folder.
      return typeof v.file === 'string' && v.file.length > 0 && v.file.length < 1024 && !v.file.split(/[\\/]/).includes('..') && !/^([a-zA-Z]:)?[\\/]/.test(v.file)
        ? { type: 'open-file', file: v.file } : undefined;
    case 'open-step': return whole(v.step) && v.step >= 1 ? { type: 'open-step', step: v.step } : undefined;
    case 'log':
      return (v.level === 'info' || v.level === 'error') && typeof v.message === 'string' ? { type: 'log', level: v.level, message: v.message.slice(0, 2000) } : undefined;
    default: return undefined;
  }
}

/** A host message, checked by the webview (the shape only: the view model is the core's own data). */
export function parseTrialHostMessage(v: unknown): TrialHostToWebview | undefined {
  if (!isObj(v)) return undefined;
  if (v.type === 'error' && typeof v.message === 'string') return { type: 'error', message: v.message };
  if (v.type === 'show' && isObj(v.view) && Array.isArray(v.view.steps) && isObj(v.view.header) && Array.isArray(v.view.rewards) && Array.isArray(v.view.notes)) {
    return { type: 'show', view: v.view as unknown as TrialView, ...(whole(v.step) ? { step: v.step } : {}) };
  }
  return undefined;
}
