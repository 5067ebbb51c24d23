import * as vscode from 'vscode';
import { bandOf, modelKey } from '../band/bandService';
import type { Ctx } from '../context';
import { RUNS_VIEW_ID } from '../runs/runsView';

/** Diagnostics of these sources are Taskwright's findings (audit, validation, review). */
const OUR_SOURCES = /^taskwright( sandbox|-review)?$/;
const REFRESH_DELAY_MS = 200;

export interface StatusBarCounts {
  readonly errors: number;
  readonly warnings: number;
  readonly infos: number;
  readonly running: number;
  readonly model: string | undefined;
}

/** The Problems panel's count of Taskwright's findings, by severity (hints count as info). */
function countFindings(): Pick<StatusBarCounts, 'errors' | 'warnings' | 'infos'> {
  const n = { errors: 0, warnings: 0, infos: 0 };
  for (const [, list] of vscode.languages.getDiagnostics()) {
    for (const d of list) {
      if (!d.source || !OUR_SOURCES.test(d.source)) continue;
      if (d.severity === vscode.DiagnosticSeverity.Error) n.errors++;
      else if (d.severity === vscode.DiagnosticSeverity.Warning) n.warnings++;
      else n.infos++;
    }
  }
  return n;
}

/**
 * One status bar item: Taskwright's findings in Problems, the trials running in this window and the
 * band model the Task Explorer shows. A click opens the Runs view; the tooltip links to Problems and
 * to the band model picker. Recounted (debounced) when diagnostics, running trials or the band change.
 */
export class TaskwrightStatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('taskwright.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private counts: StatusBarCounts = { errors: 0, warnings: 0, infos: 0, running: 0, model: undefined };

  constructor(private readonly ctx: Ctx) {
    this.item.name = 'Taskwright';
    this.item.command = { command: `${RUNS_VIEW_ID}.focus`, title: 'Show Runs' };
    const band = bandOf(ctx);
    this.disposables.push(
      this.item,
      vscode.languages.onDidChangeDiagnostics(() => this.updateSoon()),
      ctx.trials.onDidChange(() => this.update()),
      band.onDidChange(() => this.update()),
      ctx.tasks.onDidChange(() => this.updateSoon()),
    );
    this.update();
  }

  /** What the item shows now (for the extension-host tests). */
  current(): StatusBarCounts & { readonly text: string } {
    return { ...this.counts, text: this.item.text };
  }

  private updateSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.update();
    }, REFRESH_DELAY_MS);
  }

  private update(): void {
    const shown = bandOf(this.ctx).shownModel();
    this.counts = { ...countFindings(), running: this.ctx.trials.running(), model: shown ? modelKey(shown) : undefined };
    const { errors, warnings, infos, running, model } = this.counts;
    // The beaker and the name set it apart from the workbench's own Problems counts beside it.
    const parts = [`$(beaker) Taskwright $(error) ${errors} $(warning) ${warnings} $(info) ${infos}`];
    if (running) parts.push(`$(sync~spin) ${running} running`);
    if (model) parts.push(`$(graph) ${model}`);
    this.item.text = parts.join(' ');
    this.item.accessibilityInformation = {
      label: `Taskwright: ${errors} errors, ${warnings} warnings, ${infos} infos; ${running} trials running${model ? `; band model ${model}` : ''}`,
    };
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['workbench.actions.view.problems', `${RUNS_VIEW_ID}.focus`, 'taskwright.band.selectModel'] };
    md.appendMarkdown(`**Taskwright**\n\n`);
    md.appendMarkdown(`[${errors} errors, ${warnings} warnings, ${infos} infos](command:workbench.actions.view.problems) in Problems  \n`);
    md.appendMarkdown(`[${running ? `${running} trial${running === 1 ? '' : 's'} to go (running or queued)` : 'No trials running'}](command:${RUNS_VIEW_ID}.focus) — open the Runs view  \n`);
    md.appendMarkdown(model ? `Band model: ` : 'No band model yet — ');
    if (model) md.appendText(model);
    md.appendMarkdown(` ([select…](command:taskwright.band.selectModel))`);
    this.item.tooltip = md;
    if (this.ctx.tasks.all().length || running || model) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}
