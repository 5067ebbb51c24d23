import fs from 'node:fs';
import path from 'node:path';
import type { RecordedRequest, Script, ScriptedReply } from './scripted';

export const GEN_FIXTURES = path.resolve(__dirname, '../../../test/fixtures/generate');

/** Every file of a fixture task folder as the `files` list the meta-agent submits. */
export function filesOf(dir: string, replace: Readonly<Record<string, string>> = {}): { path: string; content: string }[] {
  const out: { path: string; content: string }[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out.push({ path: r, content: replace[r] ?? fs.readFileSync(path.join(dir, r), 'utf8') });
    }
  };
  walk('');
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The good generated task (Harbor), optionally with some files replaced. */
export function goodDraft(replace: Readonly<Record<string, string>> = {}, id = 'sum-numbers'): { id: string; summary: string; files: { path: string; content: string }[] } {
  return { id, summary: 'Sum the integers of /app/numbers.txt into /app/total.txt.', files: filesOf(path.join(GEN_FIXTURES, 'sum-numbers'), replace) };
}

export const WRONG_SOLVE = (): string => fs.readFileSync(path.join(GEN_FIXTURES, 'wrong-solve.sh'), 'utf8');
export const BROKEN_TEST_SH = (): string => fs.readFileSync(path.join(GEN_FIXTURES, 'broken-test.sh'), 'utf8');

/** A reply that submits `draft` through the submit_task tool. */
export function submit(draft: unknown, usage = { input: 2000, output: 800, cacheRead: 1500, cacheWrite: 0 }): ScriptedReply {
  return { kind: 'turn', toolCalls: [{ name: 'submit_task', input: draft }], usage };
}

/** How many generation turns this conversation has had (assistant messages so far). */
export function roundOf(req: RecordedRequest): number {
  const messages = Array.isArray(req.body.messages) ? (req.body.messages as { role?: string }[]) : [];
  return messages.filter((m) => m.role === 'assistant').length + 1;
}

/** Round n of each conversation gets drafts[n-1] (the last one repeats). */
export function draftsByRound(drafts: readonly unknown[]): Script {
  return (req) => submit(drafts[Math.min(roundOf(req), drafts.length) - 1]);
}

/** The feedback text the model received in the last user message (a tool_result), if any. */
export function lastFeedback(req: RecordedRequest): string {
  const messages = Array.isArray(req.body.messages) ? (req.body.messages as { role?: string; content?: unknown }[]) : [];
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content)) return '';
  return (last.content as { type?: string; content?: unknown }[]).filter((b) => b.type === 'tool_result').map((b) => String(b.content)).join('\n');
}
