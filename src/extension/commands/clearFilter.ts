import type { CommandSpec } from './command';

export const clearFilter: CommandSpec = {
  id: 'taskwright.tasks.clearFilter',
  run: (ctx) => ctx.explorer.setFilter({}),
};
