import type { CommandSpec } from './command';

/** Drops the diagnostics "Audit Workspace" left on files that are not open. */
export const clearDiagnostics: CommandSpec = {
  id: 'taskwright.audit.clear',
  async run(ctx) {
    ctx.audit.clearPinned();
    await ctx.audit.whenIdle();
  },
};
