import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { computeBand } from '../../core/band/compute';
import type { Band, BandReport, ModelBandReport, TaskBandRow } from '../../core/band/types';
import { defaultResultsDir, TRIALS_FILE } from '../../core/results/store';
import type { Ctx } from '../context';

const BAND_TEXT: Readonly<Record<Band, string>> = {
  'in-band': 'in band', 'too-easy': 'too easy', 'too-hard': 'too hard', broken: 'broken', insufficient: 'insufficient attempts',
};

const IMPORTS_KEY = 'taskwright.band.imports';
const MODEL_KEY = 'taskwright.band.model';

export function modelKey(m: Pick<ModelBandReport, 'model' | 'checkpoint'>): string {
  return m.checkpoint !== undefined ? `${m.model} @ ${m.checkpoint}` : m.model;
}

const pct = (x: number | null): string => (x === null ? '—' : `${Math.round(x * 100)}%`);

/**
 * The band as the editor shows it: the report over the workspace's results store plus imported Harbor
 * jobs / TB1 runs (computed by the same core function as `taskwright band`), and each task's band for
 * the selected model as its status in the Task Explorer. Recomputed when a run appends a trial.
 */
export class BandService implements vscode.Disposable {
  private report: BandReport | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly changed = new vscode.EventEmitter<BandReport | undefined>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly ctx: Ctx) {
    const later = (): void => this.refreshSoon();
    this.disposables.push(ctx.store.onDidChange((e) => { if (path.basename(e.path) === TRIALS_FILE) later(); }), this.changed);
    this.disposables.push(ctx.tasks.onDidChange(later));
  }

  /** Results folders the report reads: each workspace folder's store, then the imports. */
  resultsPaths(): string[] {
    const stores = (vscode.workspace.workspaceFolders ?? []).map((f) => defaultResultsDir(f.uri.fsPath)).filter((d) => fs.existsSync(d));
    return [...stores, ...this.imports()];
  }

  imports(): string[] {
    return this.ctx.extension.workspaceState.get<string[]>(IMPORTS_KEY, []);
  }

  async addImports(paths: readonly string[]): Promise<void> {
    const next = [...new Set([...this.imports(), ...paths.map((p) => path.resolve(p))])];
    await this.ctx.extension.workspaceState.update(IMPORTS_KEY, next);
    this.refresh();
  }

  selectedModel(): string | undefined {
    return this.ctx.extension.workspaceState.get<string>(MODEL_KEY);
  }

  async selectModel(key: string | undefined): Promise<void> {
    await this.ctx.extension.workspaceState.update(MODEL_KEY, key);
    this.publish();
    this.changed.fire(this.report);
  }

  current(): BandReport | undefined {
    return this.report;
  }

  /** The report's model entry shown in the explorer: the selected one, else the first. */
  shownModel(): ModelBandReport | undefined {
    const models = this.report?.models ?? [];
    const sel = this.selectedModel();
    return models.find((m) => modelKey(m) === sel) ?? models[0];
  }

  refreshSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 500);
  }

  refresh(): BandReport | undefined {
    const paths = this.resultsPaths();
    if (paths.length === 0) {
      this.report = undefined;
    } else {
      const { report, warnings } = computeBand(paths);
      for (const w of warnings) this.ctx.log.debug(`band: ${w}`);
      this.report = report.models.length ? report : undefined;
    }
    // With nothing chosen yet, the first model is kept as the choice, so models added later (imports,
    // runs) do not change which band the explorer shows.
    const first = this.report?.models[0];
    if (first && !this.selectedModel()) void this.ctx.extension.workspaceState.update(MODEL_KEY, modelKey(first));
    this.publish();
    this.changed.fire(this.report);
    return this.report;
  }

  private publish(): void {
    this.ctx.status.clear('band');
    const m = this.shownModel();
    if (!m || !this.report) return;
    const rows = new Map<string, TaskBandRow>();
    for (const r of m.tasks) {
      rows.set(r.id, r);
      rows.set(path.resolve(r.path), r);
    }
    for (const task of this.ctx.tasks.all()) {
      const r = rows.get(task.dir) ?? rows.get(task.id);
      if (!r) continue;
      const infra = (r.infraErrors ? `, ${r.infraErrors} infra error(s) not counted` : '')
        + (r.verifierOom ? `, ${r.verifierOom} verifier OOM (memory limit too tight for its verifier)` : '');
      // The band is text on the row, never the icon: the icon is the task's health (see TaskStatusService).
      this.ctx.status.set(task.dir, 'band', {
        level: 'ok',
        band: r.band,
        // The share of attempts solved (pass@k of 1 in 2 is 100%, which reads as if it always passed).
        label: r.band === 'broken' || r.band === 'insufficient' ? BAND_TEXT[r.band] : `${BAND_TEXT[r.band]} ${pct(r.attempts ? r.successes / r.attempts : null)}`,
        summary: `band for ${modelKey(m)}: ${BAND_TEXT[r.band]} — ${r.successes}/${r.attempts} solved, pass@${this.report.k} ${pct(r.passAtK)}${infra}${r.brokenReason ? ` (${r.brokenReason})` : ''}`,
      });
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The band service of this extension context, created on first use and disposed with it. */
export function bandOf(ctx: Ctx): BandService {
  return ctx.service(BandService);
}
