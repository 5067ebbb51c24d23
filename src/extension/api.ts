import type * as vscode from 'vscode';
import type { Task } from '../core/model/task';
import type { TaskFilter } from './explorer/filter';
import type { TrialView } from '../core/trials/model';
import type { RunsRowSnapshot } from './runs/runsView';
import type { ItemState } from './testing/controller';

export interface TestTreeSnapshot {
  readonly id: string;
  readonly label: string;
  readonly children: readonly TestTreeSnapshot[];
}

/** One dataset group of the Task Explorer as drawn: labels and descriptions of its task rows. */
export interface ExplorerGroupSnapshot {
  readonly label: string;
  readonly tasks: readonly { readonly id: string; readonly description: string; readonly contextValue: string; readonly icon?: string; readonly tooltip?: string }[];
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
    /** A task's status per source (audit, validation, review, band), as its tooltip lists them. */
    status(dir: string): { readonly source: string; readonly level: string; readonly summary: string }[];
  };
  readonly diagnostics: {
    /** Resolves when no audit is scheduled or running. */
    whenIdle(): Promise<void>;
  };
  readonly runs: {
    /** The Runs view's rows as drawn (runs → tasks → trials), as last read from the store. */
    snapshot(depth?: number): Promise<RunsRowSnapshot[]>;
    /** The run folders shown, newest first (as drawn, without rereading). */
    shownRunDirs(): string[];
    /** The view's node of a run (or of one of its trials), to pass to the Runs view's commands. */
    node(runDir: string, trialId?: string): unknown;
  };
  readonly bandPanel: {
    /** The open band panel: its source, whether the webview answered, the report's models and rows, its view state. */
    current(): {
      readonly source: string | undefined;
      readonly ready: boolean;
      readonly models: readonly { readonly key: string; readonly tasks: readonly { readonly id: string; readonly attempts: number; readonly successes: number }[] }[];
      readonly viewState: Readonly<Record<string, unknown>>;
    } | undefined;
    /** What Show Solvability Band offers to pick: label and the results folder each entry opens. */
    sourceChoices(): { readonly label: string; readonly source: string | undefined }[];
  };
  readonly testing: {
    /** The Testing view's items: datasets → tasks → checks (checks once made). */
    tree(): TestTreeSnapshot[];
    /** What the controller last reported for an item (by id), in a run or restored from the store. */
    state(id: string): ItemState | undefined;
    /** Runs a profile on a task as the Testing view does (cancelled with `token`); resolves when the run has ended. */
    run(taskDir: string, kind: 'validate' | 'oracle' | 'nop' | 'policy', token?: vscode.CancellationToken): Promise<void>;
    /**
     * Re-reads the results store and shows each task's latest validation; returns how many it showed.
     * `asAfterReload` first forgets what this session showed, as a reload of the window does.
     */
    restore(asAfterReload?: boolean): number;
    profiles(): { readonly label: string; readonly isDefault: boolean }[];
  };
  readonly trialPanel: {
    /** The open trial viewer: the view model it posted, whether the webview answered, what it drew, the selected step. */
    current(): {
      readonly ready: boolean;
      readonly view: TrialView | undefined;
      readonly rendered: { readonly steps: number; readonly selected: number; readonly failing: number } | undefined;
      readonly viewState: Readonly<Record<string, unknown>>;
    } | undefined;
    /** What the webview's `o`/Enter asks for: step `n` (1-based) of the open trial as a read-only shell document, beside. */
    openStep(n: number): Promise<vscode.TextEditor | undefined>;
  };
  readonly trust: {
    /**
     * Makes the trust gate behave as in an untrusted workspace (`false`) or return to the workspace's
     * own trust (`undefined`); the rig's code-server cannot open an untrusted one. Clears `refused`.
     */
    simulate(trusted: boolean | undefined): void;
    /** What the gate refused since the last `simulate`: command ids (and `testing:<profile>`). */
    refused(): readonly string[];
    /** Ids of the commands that need a trusted workspace (they build, run containers or agents, or call a model). */
    gated(): string[];
  };
  readonly statusBar: {
    /** What the Taskwright status bar item counts and shows now. */
    current(): { readonly errors: number; readonly warnings: number; readonly infos: number; readonly running: number; readonly model: string | undefined; readonly text: string };
    /** The command a click on the item runs. */
    command(): string | undefined;
  };
}
