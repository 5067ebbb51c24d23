import type { Ctx } from '../context';
import { auditWorkspace } from './auditWorkspace';
import { clearDiagnostics } from './clearDiagnostics';
import { clearFilter } from './clearFilter';
import { registerCommand, type CommandSpec } from './command';
import { filterTasks } from './filterTasks';
import { newTask } from './newTask';
import { openTask } from './openTask';
import { refreshTasks } from './refreshTasks';
import { revealTask, revealTaskFolder } from './revealTask';
import { openBandPanel } from '../panel/openPanel';
import { registerBandPanelSerializer } from '../panel/bandPanel';
import { openTrialLogs, rerunTask, showSandboxLog, validateAll, validateTask } from '../sandbox/commands';
import { bandOf } from '../band/bandService';
import { BAND_COMMANDS } from '../band/commands';
import { GENERATE_COMMANDS } from '../generate/commands';
import { REVIEW_COMMANDS } from '../review/commands';
import { fixFindingCommand } from '../review/fix';
import { openRulePage } from '../diagnostics/rulePages';
import { checkEngineCommand } from '../sandbox/checkEngine';
import { RUNS_COMMANDS } from '../runs/commands';
import { registerStepDocuments } from '../trial/stepDocuments';
import { registerTrialPanelSerializer } from '../trial/trialPanel';

/**
 * The one command table. Each command lives in its own file; to add one, import it here and add it
 * below, and declare its id, title and menus in package.json `contributes`.
 */
export const COMMANDS: readonly CommandSpec[] = [
  refreshTasks,
  filterTasks,
  clearFilter,
  newTask,
  openTask,
  revealTask,
  revealTaskFolder,
  auditWorkspace,
  clearDiagnostics,
  openBandPanel,
  validateTask, validateAll, rerunTask, openTrialLogs, showSandboxLog,
  ...BAND_COMMANDS,
  ...GENERATE_COMMANDS,
  ...REVIEW_COMMANDS,
  fixFindingCommand,
  ...RUNS_COMMANDS,
  openRulePage,
  checkEngineCommand,
];

export function registerCommands(ctx: Ctx): void {
  for (const spec of COMMANDS) ctx.own(registerCommand(ctx, spec));
  ctx.own(registerBandPanelSerializer(ctx));
  ctx.own(registerTrialPanelSerializer(ctx));
  ctx.own(registerStepDocuments());
  // Each task's band for the selected model, in the explorer from the start (results already on disk).
  bandOf(ctx).refreshSoon();
}
