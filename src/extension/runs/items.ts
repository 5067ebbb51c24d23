import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatSeconds, trialLogsDir, trialSeconds, type AgentTally, type RunSummary, type RunTaskGroup } from '../../core/results/runs';
import type { TrialOutcome, TrialRecord } from '../../core/results/trial';

/** A run folder of a workspace's results store. */
export interface RunNode {
  readonly kind: 'run';
  /** The results folder holding it (`<workspace>/.taskwright/runs`). */
  readonly resultsDir: string;
  /** The workspace folder the store belongs to (task paths in records are relative to it). */
  readonly workspaceDir: string;
  readonly run: RunSummary;
}

export interface RunTaskNode {
  readonly kind: 'runTask';
  readonly parent: RunNode;
  readonly group: RunTaskGroup;
}

export interface TrialNode {
  readonly kind: 'trial';
  readonly parent: RunTaskNode;
  readonly trial: TrialRecord;
}

export interface LogNode {
  readonly kind: 'log';
  readonly parent: TrialNode;
  /** Relative to the trial's folder (POSIX). */
  readonly file: string;
}

export type RunsNode = RunNode | RunTaskNode | TrialNode | LogNode;

const color = (id: string): vscode.ThemeColor => new vscode.ThemeColor(id);

/** Each outcome's icon: infra errors and cancellations are grey on purpose (never the agent's failure). */
const OUTCOME_ICON: Readonly<Record<TrialOutcome, vscode.ThemeIcon>> = {
  passed: new vscode.ThemeIcon('pass', color('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', color('testing.iconFailed')),
  'agent-error': new vscode.ThemeIcon('error', color('testing.iconFailed')),
  'agent-timeout': new vscode.ThemeIcon('watch', color('testing.iconFailed')),
  'verifier-timeout': new vscode.ThemeIcon('watch', color('testing.iconErrored')),
  'verifier-error': new vscode.ThemeIcon('bug', color('testing.iconErrored')),
  'verifier-oom': new vscode.ThemeIcon('bug', color('testing.iconErrored')),
  'infra-error': new vscode.ThemeIcon('debug-disconnect', color('testing.iconSkipped')),
  cancelled: new vscode.ThemeIcon('circle-slash', color('testing.iconSkipped')),
};

const RUN_ICON: Readonly<Record<RunSummary['state'], vscode.ThemeIcon>> = {
  running: new vscode.ThemeIcon('loading~spin'),
  finished: new vscode.ThemeIcon('history'),
  interrupted: new vscode.ThemeIcon('debug-pause', color('problemsWarningIcon.foreground')),
};

/** A run's name: the policy it ran (or "validation"), and its checkpoint. */
export function runLabel(run: RunSummary): string {
  const p = run.params;
  if (p?.kind === 'validate') return 'validation';
  const who = run.model ?? p?.agent ?? run.trials[0]?.agent ?? 'run';
  return p?.checkpoint ? `${who} @ ${p.checkpoint}` : who;
}

function when(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "1/2 passed", or per agent when several ran side by side (a validation): "oracle 1/1 · nop 0/1". */
function passedText(agents: readonly AgentTally[]): string {
  if (agents.length > 1) return agents.map((a) => `${a.agent} ${a.passed}/${a.attempts}`).join(' · ');
  const [a] = agents;
  return `${a?.passed ?? 0}/${a?.attempts ?? 0} passed`;
}

export function runItem(node: RunNode): vscode.TreeItem {
  const { run } = node;
  const item = new vscode.TreeItem(runLabel(run), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `run:${run.dir}`;
  const infra = run.counts['infra-error'] ?? 0;
  // What differs between runs first; the start time last (the tree is often narrow).
  const parts = [`${run.tasks.length} task${run.tasks.length === 1 ? '' : 's'}`, passedText(run.agents)];
  if (infra) parts.push(`${infra} infra`);
  if (run.state !== 'finished') parts.push(run.state);
  if (run.imported) parts.push(run.imported === 'harbor' ? 'imported Harbor job' : 'imported TB1 run');
  else parts.push(when(run.params?.startedAt));
  item.description = parts.filter(Boolean).join(' · ');
  item.iconPath = run.imported ? new vscode.ThemeIcon('cloud-download') : RUN_ICON[run.state];
  item.contextValue = run.imported ? 'taskwright.run.imported' : `taskwright.run.${run.state}`;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${run.id}**\n\n`);
  md.appendText(`${run.params?.kind ?? 'run'} · agent ${run.params?.agent ?? run.trials[0]?.agent ?? '—'}${run.model ? ` · model ${run.model}` : ''}\n`);
  md.appendText(`started ${run.params?.startedAt ?? '—'}${run.params?.finishedAt ? ` · finished ${run.params.finishedAt}` : ` · ${run.state}`}\n`);
  md.appendText(Object.entries(run.counts).map(([k, v]) => `${v} ${k}`).join(', ') || 'no trials yet');
  if (run.skipped) md.appendText(`\n${run.skipped} unreadable line(s) in trials.jsonl skipped`);
  item.tooltip = md;
  return item;
}

export function runTaskItem(node: RunTaskNode): vscode.TreeItem {
  const { group } = node;
  const item = new vscode.TreeItem(group.taskId, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `runTask:${node.parent.run.dir}:${group.task}`;
  item.description = passedText(group.agents);
  item.tooltip = group.task;
  item.iconPath = new vscode.ThemeIcon('beaker');
  item.contextValue = node.parent.run.imported ? 'taskwright.importedRunTask' : 'taskwright.runTask';
  return item;
}

/** "#2 failed" / "#2 try 2 infra-error". */
export function trialLabel(t: TrialRecord): string {
  return `#${t.attempt}${(t.try ?? 1) > 1 ? ` try ${t.try}` : ''} ${t.outcome}`;
}

/** "reward 1 · 42s · claude-sonnet-4-5". */
export function trialDescription(t: TrialRecord): string {
  const parts = [t.reward === null ? 'no reward' : `reward ${t.reward}`, formatSeconds(trialSeconds(t))];
  // The model when there is one; else the agent (oracle, nop, a program), which is then what varies.
  parts.push(t.model ?? t.agent);
  if (t.infra) parts.push(t.infra.kind);
  return parts.join(' · ');
}

export function trialItem(node: TrialNode): vscode.TreeItem {
  const t = node.trial;
  const item = new vscode.TreeItem(trialLabel(t), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `trial:${node.parent.parent.run.dir}:${t.trial}`;
  item.description = trialDescription(t);
  item.iconPath = OUTCOME_ICON[t.outcome];
  item.contextValue = node.parent.parent.run.imported ? 'taskwright.importedTrial' : 'taskwright.trial';
  // A click reads the trial (the viewer); its files stay one expand away.
  item.command = { command: 'taskwright.runs.openTrial', title: 'Open Trial', arguments: [node] };
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${t.taskId ?? t.task}** — attempt ${t.attempt}${t.try ? `, try ${t.try}` : ''}: **${t.outcome}**\n\n`);
  const d = t.durations;
  md.appendText(`agent ${t.agent}${t.model ? ` (${t.model})` : ''}\n`);
  md.appendText(`reward ${t.reward ?? '—'} · build ${d.build === null ? '—' : formatSeconds(d.build)} · agent ${d.agent === null ? '—' : formatSeconds(d.agent)} · verifier ${d.verifier === null ? '—' : formatSeconds(d.verifier)}\n`);
  if (t.usage) md.appendText(`tokens ${t.usage.input} in / ${t.usage.output} out${t.costUsd !== undefined ? ` · $${t.costUsd.toFixed(4)}` : ''}\n`);
  if (t.infra) md.appendText(`infra error (${t.infra.kind}, not counted against the agent): ${t.infra.message}\n`);
  if (t.taskProblem) md.appendText(`task problem ${t.taskProblem.rule}: ${t.taskProblem.message}\n`);
  if (t.error) md.appendText(`${t.error}\n`);
  md.appendText(`started ${t.startedAt} · ${t.trial}`);
  item.tooltip = md;
  return item;
}

export function logItem(node: LogNode): vscode.TreeItem {
  const uri = vscode.Uri.file(path.join(trialLogsDir(node.parent.parent.parent.run.dir, node.parent.trial), ...node.file.split('/')));
  const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.None);
  item.id = `log:${uri.fsPath}`;
  item.resourceUri = uri;
  item.contextValue = 'taskwright.trialLog';
  item.command = { command: 'vscode.open', title: 'Open', arguments: [uri, { preview: true }] };
  return item;
}
