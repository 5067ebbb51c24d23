import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultResultsDir, listRuns } from '../../core/results/store';
import type { CommandSpec } from '../commands/command';
import { bandOf } from '../band/bandService';
import { BandPanel } from './bandPanel';

export interface SourcePick extends vscode.QuickPickItem {
  readonly source?: string;
  readonly browse?: boolean;
}

/**
 * "Show Solvability Band": opens the panel on a results folder. Given a Uri or path (from a menu or a
 * test) it opens that; otherwise it offers every run of the workspace's `.taskwright/runs` together,
 * each run alone, the imported Harbor jobs / TB1 runs, and a folder picker (results elsewhere).
 */
export const openBandPanel: CommandSpec = {
  id: 'taskwright.band.openPanel',
  async run(ctx, arg) {
    const given = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? path.resolve(arg) : undefined;
    const source = given ?? (await pickSource(bandOf(ctx).imports()));
    if (source) BandPanel.show(ctx, source);
  },
};

async function pickSource(imports: readonly string[]): Promise<string | undefined> {
  const items = sourceItems(imports);
  const picked = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { placeHolder: 'Show the solvability band of which results?' });
  if (!picked) return undefined;
  if (picked.source) return picked.source;
  const chosen = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Show Band' });
  return chosen?.[0]?.fsPath;
}

/** The source picker's entries: each store whole, each of its runs, each import, then a folder picker. */
export function sourceItems(imports: readonly string[]): SourcePick[] {
  const items: SourcePick[] = [];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    const root = defaultResultsDir(f.uri.fsPath);
    if (!fs.existsSync(root)) continue;
    const runs = listRuns(root);
    items.push({ label: `$(folder) All runs in ${f.name}`, description: `${runs.length} run${runs.length === 1 ? '' : 's'}`, detail: root, source: root });
    for (const r of runs) items.push({ label: `$(history) ${path.basename(r)}`, description: f.name, source: r });
  }
  for (const dir of imports) {
    if (fs.existsSync(dir)) items.push({ label: `$(cloud-download) ${path.basename(dir)}`, description: 'imported', detail: dir, source: dir });
  }
  items.push({ label: '$(folder-opened) Choose a results folder…', description: 'run folder, Harbor job or TB1 run', browse: true });
  return items;
}
