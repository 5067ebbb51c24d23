import * as vscode from 'vscode';
import { BANDS, type Band } from '../../core/band/types';
import type { Difficulty, TaskFormat } from '../../core/model/task';
import { bandOf, modelKey } from '../band/bandService';
import { FORMAT_LABEL, HEALTHS, type Health, type TaskFilter } from '../explorer/filter';
import type { CommandSpec } from './command';

const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard', 'unknown'];
const FORMATS: readonly TaskFormat[] = ['tb1', 'harbor'];

type FilterItem = vscode.QuickPickItem & ({ difficulty: Difficulty } | { format: TaskFormat } | { health: Health } | { band: Band });

const FILTER_KEYS = new Set(['text', 'difficulties', 'formats', 'health', 'bands']);
const HEALTH_LABEL: Readonly<Record<Health, string>> = {
  error: '$(error) errors', warning: '$(warning) warnings', info: '$(info) notes only', ok: '$(pass) no findings',
};

function isTaskFilter(arg: unknown): arg is TaskFilter {
  return typeof arg === 'object' && arg !== null && !('kind' in arg) && Object.keys(arg).every((k) => FILTER_KEYS.has(k));
}

/**
 * One quick pick: what is typed filters by text; ticked items filter by difficulty, format, health
 * (the icon: audit and validation) and band (for the model the explorer shows).
 * Called with a filter object (from a keybinding or a test) it applies that filter directly.
 */
export const filterTasks: CommandSpec = {
  id: 'taskwright.tasks.filter',
  async run(ctx, arg) {
    if (isTaskFilter(arg)) return ctx.explorer.setFilter(arg);
    const current = ctx.explorer.filter;
    const counts = new Map<string, number>();
    const bump = (k: string): void => { counts.set(k, (counts.get(k) ?? 0) + 1); };
    for (const t of ctx.tasks.all()) {
      bump(t.metadata.difficulty);
      bump(t.format);
      const level = ctx.status.combined(t.dir)?.level;
      if (level && level !== 'running') bump(`health:${level}`);
      const band = ctx.status.get(t.dir).get('band')?.band;
      if (band) bump(`band:${band}`);
    }
    const shown = bandOf(ctx).shownModel();
    const items: FilterItem[] = [
      { label: 'Difficulty', kind: vscode.QuickPickItemKind.Separator } as FilterItem,
      ...DIFFICULTIES.map((difficulty) => ({ label: difficulty, description: `${counts.get(difficulty) ?? 0}`, difficulty, alwaysShow: true })),
      { label: 'Format', kind: vscode.QuickPickItemKind.Separator } as FilterItem,
      ...FORMATS.map((format) => ({ label: FORMAT_LABEL[format], description: `${counts.get(format) ?? 0}`, format, alwaysShow: true })),
      { label: 'Health (audit, validation)', kind: vscode.QuickPickItemKind.Separator } as FilterItem,
      ...HEALTHS.map((health) => ({ label: HEALTH_LABEL[health], description: `${counts.get(`health:${health}`) ?? 0}`, health, alwaysShow: true })),
      ...(shown ? [
        { label: `Band for ${modelKey(shown)}`, kind: vscode.QuickPickItemKind.Separator } as FilterItem,
        ...BANDS.map((band) => ({ label: band.replace('-', ' '), description: `${counts.get(`band:${band}`) ?? 0}`, band, alwaysShow: true })),
      ] : []),
    ];
    const qp = vscode.window.createQuickPick<FilterItem>();
    qp.title = 'Filter Tasks';
    qp.placeholder = 'Type to match id, category, tag or path; tick difficulties, formats, health or bands; Enter applies';
    qp.canSelectMany = true;
    qp.items = items;
    qp.value = current.text ?? '';
    qp.selectedItems = items.filter((i) => ('difficulty' in i && current.difficulties?.includes(i.difficulty))
      || ('format' in i && current.formats?.includes(i.format))
      || ('health' in i && current.health?.includes(i.health))
      || ('band' in i && current.bands?.includes(i.band)));
    const filter = await new Promise<TaskFilter | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const sel = qp.selectedItems;
        resolve({
          text: qp.value.trim() || undefined,
          difficulties: sel.flatMap((i) => ('difficulty' in i ? [i.difficulty] : [])),
          formats: sel.flatMap((i) => ('format' in i ? [i.format] : [])),
          health: sel.flatMap((i) => ('health' in i ? [i.health] : [])),
          bands: sel.flatMap((i) => ('band' in i ? [i.band] : [])),
        });
        qp.hide();
      });
      qp.onDidHide(() => { resolve(undefined); qp.dispose(); });
      qp.show();
    });
    if (filter) await ctx.explorer.setFilter(filter);
  },
};
