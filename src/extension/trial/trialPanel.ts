import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  parseTrialWebviewMessage, sanitizeTrialState, TRIAL_PANEL_VIEW_TYPE, type TrialHostToWebview, type TrialViewState, type TrialWebviewToHost,
} from '../../core/protocol/trialPanel';
import type { TrialRecord } from '../../core/results/trial';
import { inside } from '../../core/trials/files';
import { isHarborTrial, readTrialFolder } from '../../core/trials/harbor';
import { RECORD_FILE } from '../../core/results/recover';
import type { TrialView } from '../../core/trials/model';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { panelResourceRoots } from '../panel/html';
import { trialHtml } from './html';
import { stepDocumentUri } from './stepDocuments';

/** What the webview last said it drew (the extension-host tests read it). */
export interface TrialRendered {
  readonly steps: number;
  readonly selected: number;
  readonly failing: number;
}

/**
 * The Trial viewer (one per window, reused): a trial folder → view model (core) → one `show`
 * message after the webview's `ready`. The selected step lives in the webview (`setState`) and comes
 * back through the serializer after a reload, so no `retainContextWhenHidden`.
 */
export class TrialPanel implements vscode.Disposable {
  static current: TrialPanel | undefined;
  private static readonly changed = new vscode.EventEmitter<TrialPanel | undefined>();
  /** Fires when the panel opens, closes, sends a trial or hears back from the webview. */
  static readonly onDidChange = TrialPanel.changed.event;

  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private shown: TrialView | undefined;
  private state: TrialViewState = {};
  private lastRendered: TrialRendered | undefined;

  /** Opens (or reveals) the viewer on a trial folder; `record` is the run's record of it when known. */
  static show(ctx: Ctx, dir: string, record?: TrialRecord): TrialPanel {
    if (!TrialPanel.current) {
      const panel = vscode.window.createWebviewPanel(TRIAL_PANEL_VIEW_TYPE, 'Trial', vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: panelResourceRoots(ctx.extension.extensionUri),
      });
      TrialPanel.current = new TrialPanel(ctx, panel);
    } else {
      TrialPanel.current.panel.reveal();
    }
    TrialPanel.current.load(dir, record);
    return TrialPanel.current;
  }

  /** Brings back the panel VS Code restored after a reload, from the state the webview saved. */
  static revive(ctx: Ctx, panel: vscode.WebviewPanel, saved: unknown): TrialPanel {
    TrialPanel.current?.dispose();
    panel.webview.options = { enableScripts: true, localResourceRoots: panelResourceRoots(ctx.extension.extensionUri) };
    const p = new TrialPanel(ctx, panel);
    TrialPanel.current = p;
    const state = sanitizeTrialState(saved);
    // The folder comes back from the webview's saved state: read only if it still is a trial folder.
    if (state.dir && path.isAbsolute(state.dir) && (isHarborTrial(state.dir) || fs.existsSync(path.join(state.dir, RECORD_FILE)))) p.load(state.dir, undefined, state.step);
    return p;
  }

  private constructor(private readonly ctx: Ctx, readonly panel: vscode.WebviewPanel) {
    panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m), null, this.disposables);
    panel.onDidDispose(() => this.dispose(), null, this.disposables);
    panel.webview.html = trialHtml(panel.webview, ctx.extension.extensionUri);
    TrialPanel.changed.fire(this);
  }

  /** The view model sent to the webview. */
  get view(): TrialView | undefined {
    return this.shown;
  }

  /** What the webview reported after its last paint. */
  get rendered(): TrialRendered | undefined {
    return this.lastRendered;
  }

  get isReady(): boolean {
    return this.ready;
  }

  get viewState(): TrialViewState {
    return this.state;
  }

  private load(dir: string, record: TrialRecord | undefined, step?: number): void {
    try {
      this.shown = readTrialFolder(dir, record);
    } catch (e) {
      this.ctx.log.error(`trial viewer: could not read ${dir}: ${errorMessage(e)}`);
      this.post({ type: 'error', message: `Could not read ${dir}: ${errorMessage(e)}` });
      return;
    }
    const h = this.shown.header;
    this.panel.title = `Trial — ${h.taskId} #${h.attempt ?? '?'}`;
    this.state = { dir: this.shown.dir, ...(step ? { step } : {}) };
    this.lastRendered = undefined;
    this.post({ type: 'show', view: this.shown, ...(step ? { step } : {}) });
    TrialPanel.changed.fire(this);
  }

  private post(msg: TrialHostToWebview): void {
    // Before the handshake the webview has no listener; `ready` sends what is loaded.
    if (this.ready) void this.panel.webview.postMessage(msg);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const msg = parseTrialWebviewMessage(raw);
    if (!msg) {
      this.ctx.log.warn('trial viewer: ignored an invalid message from the webview');
      return;
    }
    try {
      await this.handle(msg);
    } catch (e) {
      this.ctx.log.error(`trial viewer: ${msg.type}: ${errorMessage(e)}`);
      this.post({ type: 'error', message: errorMessage(e) });
    }
  }

  private async handle(msg: TrialWebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        if (this.shown) this.post({ type: 'show', view: this.shown, ...(this.state.step ? { step: this.state.step } : {}) });
        TrialPanel.changed.fire(this);
        return;
      case 'state':
        // The folder stays the host's: a webview cannot point the viewer elsewhere.
        this.state = { ...(this.state.dir ? { dir: this.state.dir } : {}), ...(msg.state.step ? { step: msg.state.step } : {}) };
        TrialPanel.changed.fire(this);
        return;
      case 'rendered':
        this.lastRendered = { steps: msg.steps, selected: msg.selected, failing: msg.failing };
        TrialPanel.changed.fire(this);
        return;
      case 'open-file': {
        const file = this.shown && inside(this.shown.dir, msg.file);
        if (!file) throw new Error(`${msg.file} is not a file of this trial`);
        await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true, viewColumn: vscode.ViewColumn.Beside });
        return;
      }
      case 'open-step':
        await this.openStep(msg.step);
        return;
      case 'log':
        if (msg.level === 'error') this.ctx.log.error(`trial viewer (webview): ${msg.message}`);
        else this.ctx.log.info(`trial viewer (webview): ${msg.message}`);
        return;
    }
  }

  /** Step `n` (1-based) as a read-only shell transcript beside the viewer (the webview's `o`/Enter). */
  async openStep(n: number): Promise<vscode.TextEditor> {
    const step = this.shown?.steps[n - 1];
    if (!this.shown || !step) throw new Error(`step ${n} is not in the trial ${this.shown?.dir ?? '(none shown)'}`);
    const doc = await vscode.workspace.openTextDocument(stepDocumentUri(this.shown, step));
    await vscode.languages.setTextDocumentLanguage(doc, 'shellscript');
    return vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  dispose(): void {
    if (TrialPanel.current === this) TrialPanel.current = undefined;
    this.panel.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    TrialPanel.changed.fire(undefined);
  }
}

/** Registered at activation so VS Code can bring the viewer back after a window reload. */
export function registerTrialPanelSerializer(ctx: Ctx): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(TRIAL_PANEL_VIEW_TYPE, {
    deserializeWebviewPanel: async (panel, state: unknown) => {
      TrialPanel.revive(ctx, panel, state);
    },
  });
}
