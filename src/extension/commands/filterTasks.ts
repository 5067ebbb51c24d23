import * as vscode from 'vscode';
import type { Difficulty, TaskFormat } from '../../core/model/task';
import { FORMAT_LABEL, type TaskFilter } from '../explorer/filter';
import type { CommandSpec } from './command';

const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard', 'unknown'];
const FORMATS: readonly TaskFormat[] = ['tb1', 'harbor'];

type FilterItem = vscode.QuickPickItem & ({ difficulty: Difficulty } | { format: TaskFormat });

function isTaskFilter(arg: unknown): arg is TaskFilter {
  return typeof arg === 'object' && arg !== null && !('kind' in arg)
    && Object.keys(arg).every((k) => k === 'text' || k === 'difficulties' || k === 'formats');
}

/**
 * One quick pick: what is typed filters by text; ticked items filter by difficulty and format.
 * Called with a filter object (from a keybinding or a test) it applies that filter directly.
 */
export const filterTasks: CommandSpec = {
  id: 'taskwright.tasks.filter',
  async run(ctx, arg) {
    if (isTaskFilter(arg)) return ctx.explorer.setFilter(arg);
    const current = ctx.explorer.filter;
    const counts = new Map<string, number>();
    for (const t of ctx.tasks.all()) {
      counts.set(t.metadata.difficulty, (counts.get(t.metadata.difficulty) ?? 0) + 1);
      counts.set(t.format, (counts.get(t.format) ?? 0) + 1);
    }
    const items: FilterItem[] = [
      { label: 'Difficulty', kind: vscode.QuickPickItemKind.Separator } as FilterItem,
      ...DIFFICULTIES.map((difficulty) => ({ label: difficulty, description: `${counts.get(difficulty) ?? 0}`, difficulty, alwaysShow: true })),
      { label: 'Format', kind: vscode.QuickPickItemKind.Separator } as FilterItem,
      ...FORMATS.map((format) => ({ label: FORMAT_LABEL[format], description: `${counts.get(format) ?? 0}`, format, alwaysShow: true })),
    ];
    const qp = vscode.window.createQuickPick<FilterItem>();
    qp.title = 'Filter Tasks';
    qp.placeholder = 'Type to match id, category, tag or path; tick difficulties and formats; Enter applies';
    qp.canSelectMany = true;
    qp.items = items;
    qp.value = current.text ?? '';
    qp.selectedItems = items.filter((i) => ('difficulty' in i && current.difficulties?.includes(i.difficulty))
      || ('format' in i && current.formats?.includes(i.format)));
    const filter = await new Promise<TaskFilter | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const sel = qp.selectedItems;
        resolve({
          text: qp.value.trim() || undefined,
          difficulties: sel.flatMap((i) => ('difficulty' in i ? [i.difficulty] : [])),
          formats: sel.flatMap((i) => ('format' in i ? [i.format] : [])),
        });
        qp.hide();
      });
      qp.onDidHide(() => { resolve(undefined); qp.dispose(); });
      qp.show();
    });
    if (filter) await ctx.explorer.setFilter(filter);
  },
};
