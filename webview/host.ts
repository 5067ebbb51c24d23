import type { WebviewToHost } from '../src/core/protocol/bandPanel';

/** What the panel needs from its host: VS Code's webview API, or nothing in the static HTML report. */
export interface HostLink {
  readonly inVsCode: boolean;
  post(msg: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export function connectHost(onStaticMessage: (msg: WebviewToHost) => void): HostLink {
  if (typeof acquireVsCodeApi === 'function') {
    const api = acquireVsCodeApi();
    return { inVsCode: true, post: (m) => api.postMessage(m), getState: () => api.getState(), setState: (s) => api.setState(s) };
  }
  // Static report: the page is its own host; state lives as long as the page.
  let state: unknown;
  return { inVsCode: false, post: onStaticMessage, getState: () => state, setState: (s) => { state = s; } };
}
