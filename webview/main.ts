// The band panel's browser entry: the same bundle runs inside a VS Code webview (data arrives as
// messages after the `ready` handshake) and in the static HTML report (data embedded in the page).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { WebviewToHost } from '../src/core/protocol/bandPanel';
import { BandApp } from './app';
import { connectHost } from './host';

declare global {
  interface Window { bandPanel?: BandApp }
}

function start(): void {
  const root = document.getElementById('app');
  if (!root) return;
  // The static report has no host: the app answers its own reveal/export messages.
  const host = connectHost((msg: WebviewToHost) => app.staticHost(msg));
  const app: BandApp = new BandApp(root, host);
  window.bandPanel = app;
  window.addEventListener('message', (e: MessageEvent) => app.receive(e.data));
  const embedded = document.getElementById('band-data');
  if (embedded?.textContent) {
    app.receive(JSON.parse(embedded.textContent) as unknown);
  }
  host.post({ type: 'ready' });
}

start();
