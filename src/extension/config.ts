import * as vscode from 'vscode';
import type { Severity } from '../core/model/finding';

/**
 * Every `taskwright.*` setting with its type and its fallback (the same default as in package.json,
 * used when the manifest default is missing, e.g. in tests). To add a setting: one entry here and
 * one in package.json `contributes.configuration`.
 */
export interface Settings {
  /** Globs (relative to a workspace folder) whose folders are never searched for tasks. */
  'discovery.exclude': string[];
  /** Audit task files as they are opened and edited. */
  'audit.onType': boolean;
  /** Delay between the last edit and the re-audit, in milliseconds. */
  'audit.debounceMs': number;
  /** Per-rule severity overrides; `off` silences a rule. Resource-scoped: per folder. */
  'audit.severity': Record<string, Severity | 'off'>;
  /**
   * Where the audit's findings show in Problems: `workspace` every task's (the same audit that colours
   * the Task Explorer), `openTasks` only tasks with an open file or pinned by "Audit Workspace".
   */
  'audit.scope': 'workspace' | 'openTasks';
  /** A baseline file (taskwright audit --write-baseline), relative to the workspace folder; '' for none. Resource-scoped. */
  'audit.baseline': string;
  /** Show the worst finding of each task in the Task Explorer. */
  'explorer.showStatus': boolean;
  /** Model for Generate / Review / Fix; empty: the default rule over the live model list. */
  'models.default': string;
  'models.authHeader': 'bearer' | 'x-api-key';
  /** Price overrides, USD per million tokens. */
  'models.prices': Record<string, unknown>;
  /** Validate the task being edited whenever one of its files is saved (trusted workspaces only). */
  'testing.runOnSave': boolean;
  /** "Validate | Run oracle | Run nop" above task configs and test files. */
  'codeLens': boolean;
  /** An https base where rule pages are published (`<base>/<rule>.md`); empty: the pages shipped with the extension. */
  'rules.docsUrl': string;
}

const FALLBACK: Settings = {
  'discovery.exclude': [],
  'audit.onType': true,
  'audit.debounceMs': 300,
  'audit.severity': {},
  'audit.baseline': '',
  'audit.scope': 'workspace',
  'explorer.showStatus': true,
  'models.default': '',
  'models.authHeader': 'bearer',
  'models.prices': {},
  'testing.runOnSave': false,
  'codeLens': true,
  'rules.docsUrl': '',
};

export type SettingKey = keyof Settings;

/** Typed access to `taskwright.*` settings; pass `scope` for resource-scoped ones. */
export class Config {
  static readonly section = 'taskwright';

  get<K extends SettingKey>(key: K, scope?: vscode.Uri | vscode.WorkspaceFolder): Settings[K] {
    const value = vscode.workspace.getConfiguration(Config.section, scope).get<Settings[K]>(key);
    return value ?? FALLBACK[key];
  }

  /** Fires `listener` when any of `keys` changes (in any scope). */
  onDidChange(keys: readonly SettingKey[], listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((e) => {
      if (keys.some((k) => e.affectsConfiguration(`${Config.section}.${k}`))) listener();
    });
  }
}
