import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BandReport } from '../../core/band/types';
import {
  BAND_PANEL_VIEW_TYPE, parseWebviewMessage, sanitizeViewState, toWire, type HostToWebview, type PanelData, type PanelViewState, type WebviewToHost,
} from '../../core/protocol/bandPanel';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { exportBand, findRow, revealTaskOf } from './actions';
import { panelHtml, panelResourceRoots } from './html';
import { reportFromResults } from './loadReport';

const RELOAD_DEBOUNCE_MS = 400;

/**
 * The Solvability Band panel (one per window). Data flows one way: results folder → band report
 * (core) → `init`/`update` messages → webview. The webview's own state (thresholds, sort, scroll)
 * lives in the webview (`setState`) and comes back through the serializer after a restart, so the
 * panel does not need `retainContextWhenHidden`.
 *
 * Live results: while the panel is open it watches its results folder and re-reads it (debounced) as
 * trials are appended; code that has a report in hand can push it with `BandPanel.current?.update()`.
 */
export class BandPanel implements vscode.Disposable {
  static current: BandPanel | undefined;
  private static readonly changed = new vscode.EventEmitter<BandPanel | undefined>();
  /** Fires when the panel opens, closes, or receives new data (tests and the status bar listen). */
  static readonly onDidChange = BandPanel.changed.event;

  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private data: PanelData | undefined;
  private state: PanelViewState;
  private watcher: vscode.Disposable | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;

  /** Opens (or reveals) the panel on a results folder, run folder or Harbor job. */
  static show(ctx: Ctx, source: string): BandPanel {
    if (BandPanel.current) {
      BandPanel.current.panel.reveal();
      BandPanel.current.setSource(source);
      return BandPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(BAND_PANEL_VIEW_TYPE, 'Solvability Band', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: panelResourceRoots(ctx.extension.extensionUri),
    });
    BandPanel.current = new BandPanel(ctx, panel, { source });
    return BandPanel.current;
  }

  /** Rebuilds the panel VS Code restored after a reload, from the state the webview had saved. */
  static revive(ctx: Ctx, panel: vscode.WebviewPanel, saved: unknown): BandPanel {
    BandPanel.current?.dispose();
    panel.webview.options = { enableScripts: true, localResourceRoots: panelResourceRoots(ctx.extension.extensionUri) };
    BandPanel.current = new BandPanel(ctx, panel, sanitizeViewState(saved));
    return BandPanel.current;
  }

  private constructor(private readonly ctx: Ctx, readonly panel: vscode.WebviewPanel, state: PanelViewState) {
    this.state = state;
    panel.iconPath = vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'band.svg');
    panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m), null, this.disposables);
    panel.onDidDispose(() => this.dispose(), null, this.disposables);
    panel.webview.html = panelHtml(panel.webview, ctx.extension.extensionUri);
    if (state.source) this.setSource(state.source);
    BandPanel.changed.fire(this);
  }

  /** The results path the panel reads (absolute), if it reads one. */
  get source(): string | undefined {
    return this.state.source;
  }

  /** The report on screen (for tests and for code that streams results). */
  get report(): BandReport | undefined {
    return this.data?.report;
  }

  /** The webview's last reported view state (thresholds, selected model, …). */
  get viewState(): PanelViewState {
    return this.state;
  }

  /** True once the webview has answered the handshake. */
  get isReady(): boolean {
    return this.ready;
  }

  /**
   * Pushes a report into the open panel — the live API for runs in progress. `live` shows the
   * streaming marker; the webview keeps its thresholds, selection and scroll position.
   */
  update(report: BandReport, opts: { live?: boolean; source?: string; newSource?: boolean } = {}): void {
    const source = opts.source ?? this.data?.source ?? this.state.source ?? 'results';
    this.data = { report, source, live: opts.live ?? this.data?.live ?? false };
    this.post({ type: opts.newSource ? 'source' : 'update', data: toWire(this.data) });
    BandPanel.changed.fire(this);
  }

  /** Re-reads the results folder now (the watcher does this by itself after each appended trial). */
  reload(opts: { newSource?: boolean } = {}): void {
    const source = this.state.source;
    if (!source) return;
    try {
      const loaded = reportFromResults([source]);
      for (const w of loaded.warnings) this.ctx.log.warn(`band panel: ${w}`);
      this.update(loaded.report, { live: loaded.live, source, ...(opts.newSource ? { newSource: true } : {}) });
    } catch (e) {
      this.ctx.log.error(`band panel: could not read ${source}: ${errorMessage(e)}`);
      this.post({ type: 'error', message: `Could not read ${source}: ${errorMessage(e)}` });
    }
  }

  private setSource(source: string): void {
    // Another source resets the view (thresholds, filters, model): they were chosen for other data.
    const newSource = this.state.source !== undefined && path.resolve(this.state.source) !== path.resolve(source);
    this.state = newSource ? { source } : { ...this.state, source };
    this.watcher?.dispose();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(source), '**/{trials.jsonl,run.json,result.json,results.json}'));
    const soon = (): void => {
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => this.reload(), RELOAD_DEBOUNCE_MS);
    };
    // The VS Code watcher serves an imported job; a store of this workspace is followed by ctx.store,
    // which also hears runs whose folders were made in one go (the VS Code watcher misses those).
    const root = path.resolve(source);
    const inSource = (p: string): boolean => p === root || p.startsWith(root + path.sep) || root.startsWith(p + path.sep);
    this.watcher = vscode.Disposable.from(
      watcher, watcher.onDidChange(soon), watcher.onDidCreate(soon), watcher.onDidDelete(soon),
      this.ctx.store.onDidChange((e) => { if (inSource(e.path)) soon(); }),
    );
    this.panel.title = `Solvability Band — ${path.basename(source) === 'runs' ? 'all runs' : path.basename(source)}`;
    this.reload({ newSource });
  }

  private post(msg: HostToWebview): void {
    // Before the handshake the webview has no listener: the data goes out with `init` instead.
    if (!this.ready) return;
    void this.panel.webview.postMessage(msg);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.ctx.log.warn(`band panel: ignored an invalid message from the webview`);
      return;
    }
    try {
      await this.handle(msg);
    } catch (e) {
      this.ctx.log.error(`band panel: ${msg.type}: ${errorMessage(e)}`);
      this.post({ type: 'error', message: errorMessage(e), ...(msg.type === 'export' ? { about: 'export' as const } : {}) });
    }
  }

  private async handle(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        if (this.data) void this.panel.webview.postMessage({ type: 'init', data: toWire(this.data), state: this.state } satisfies HostToWebview);
        BandPanel.changed.fire(this);
        return;
      case 'state':
        this.state = { ...msg.state, ...(this.state.source ? { source: this.state.source } : {}) };
        BandPanel.changed.fire(this);
        return;
      case 'reveal-task': {
        const row = this.data && findRow(this.data.report, msg.model, msg.taskId);
        if (!row) throw new Error(`task ${msg.taskId} of ${msg.model} is not in the report`);
        await revealTaskOf(this.ctx, row, [...(this.state.source ? [this.state.source] : [])]);
        return;
      }
      case 'export': {
        if (!this.data) return;
        const dir = vscode.workspace.workspaceFolders?.[0]?.uri;
        const done = await exportBand(this.data.report, msg.model, msg.band, msg.format, msg.thresholds, dir);
        if (done) this.post({ type: 'exported', count: done.count, file: vscode.workspace.asRelativePath(done.file) });
        return;
      }
      case 'log':
        if (msg.level === 'error') this.ctx.log.error(`band panel (webview): ${msg.message}`);
        else this.ctx.log.info(`band panel (webview): ${msg.message}`);
        return;
    }
  }

  dispose(): void {
    if (BandPanel.current === this) BandPanel.current = undefined;
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.watcher?.dispose();
    this.panel.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    BandPanel.changed.fire(undefined);
  }
}

/** Registered at activation so VS Code can bring the panel back after a window reload. */
export function registerBandPanelSerializer(ctx: Ctx): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(BAND_PANEL_VIEW_TYPE, {
    deserializeWebviewPanel: async (panel, state: unknown) => {
      BandPanel.revive(ctx, panel, state);
    },
  });
}
