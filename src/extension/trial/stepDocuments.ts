import * as vscode from 'vscode';
import { textOf } from '../../core/trials/files';
import type { TrialStep, TrialView } from '../../core/trials/model';

/** Read-only documents of one step each (a command and its output), opened from the trial viewer. */
export const STEP_SCHEME = 'taskwright-step';

const contents = new Map<string, string>();
/** Documents kept for the window's life are small; the oldest go first past this many. */
const MAX_KEPT = 200;

/** The step as a shell transcript: the model's words as comments, the command, its output commented. */
export function stepTranscript(view: TrialView, s: TrialStep): string {
  const comment = (t: string): string => t.split('\n').map((l) => (l ? `# ${l}` : '#')).join('\n');
  const lines = [comment(`${view.header.taskId} · ${view.header.trial} · step ${s.index}${s.exitCode !== undefined ? ` · exit ${s.exitCode ?? '?'}` : ''}`)];
  if (s.reasoning) lines.push(comment(`reasoning: ${s.reasoning}`));
  if (s.message) lines.push(comment(s.message));
  lines.push('', s.command ?? '', '');
  if (s.output) lines.push(comment(`output:\n${textOf({ file: '', parts: s.output, bytes: 0 })}`));
  return `${lines.join('\n')}\n`;
}

export function stepDocumentUri(view: TrialView, s: TrialStep): vscode.Uri {
  const key = `${view.dir}#${s.index}`;
  contents.delete(key);
  contents.set(key, stepTranscript(view, s));
  while (contents.size > MAX_KEPT) contents.delete(contents.keys().next().value as string);
  return vscode.Uri.from({ scheme: STEP_SCHEME, path: `/${view.header.taskId}/step-${s.index}.sh`, query: encodeURIComponent(key) });
}

export function registerStepDocuments(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(STEP_SCHEME, {
    provideTextDocumentContent: (uri) => contents.get(decodeURIComponent(uri.query)) ?? '# this step is no longer open in the trial viewer\n',
  });
}
