import type { Task } from '../core/model/task';
import type { TaskFilter } from './explorer/filter';

/** One dataset group of the Task Explorer as drawn: labels and descriptions of its task rows. */
export interface ExplorerGroupSnapshot {
  readonly label: string;
  readonly tasks: readonly { readonly id: string; readonly description: string; readonly contextValue: string; readonly icon?: string }[];
}

/**
 * What `activate` returns: a small surface for the extension-host tests (and other extensions),
 * so tests assert on the extension's state rather than on the DOM.
 */
export interface TaskwrightApi {
  readonly taskExplorer: {
    /** Ids of every task found in the workspace, sorted. */
    taskIds(): string[];
    /** Ids of the tasks the explorer shows (after the filter), sorted. */
    visibleTaskIds(): string[];
    filter(): TaskFilter;
    /** Resolves when every discovery and reload queued so far has finished. */
    ready(): Promise<void>;
    task(dir: string): Task | undefined;
    /** The dataset and task rows as the tree draws them (after the filter). */
    snapshot(): ExplorerGroupSnapshot[];
    /** Task folders selected in the tree. */
    selectedTaskDirs(): string[];
    /** A task's status per source (audit, validation, band), as its tooltip lists them. */
    status(dir: string): { readonly source: string; readonly level: string; readonly summary: string }[];
  };
  readonly diagnostics: {
    /** Resolves when no audit is scheduled or running. */
    whenIdle(): Promise<void>;
  };
}
