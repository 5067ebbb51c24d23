// Runs inside the real VS Code extension host with `examples/` open: "Review Task with Claude" on an
// example task, against the local Anthropic wire-format server. The model cites one real line and one
// quote that is not in the file: only the real one becomes a diagnostic, at the quote's range, with the
// review's own source and "model" in its message.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskReview } from '../../src/core/review/review';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { api, exampleUri, workspaceDir } from './helpers';

const KEY = 'sk-review-extension-host-suite';
const TASK = 'semver-sort';
const FILE = 'tests/test_outputs.py';

describe('Review Task with Claude', () => {
  let server: AnthropicScriptedServer | undefined;
  const savedEnv = { ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL };
  let line = 0;
  let quote = '';

  before(async () => {
    const text = fs.readFileSync(exampleUri(TASK, FILE).fsPath, 'utf8').split('\n');
    line = text.findIndex((l) => l.trim().length > 10) + 1;
    quote = text[line - 1]!.trim();
    server = await startAnthropicServer({
      apiKey: KEY, script: () => ({
        kind: 'turn', usage: { input: 2000, output: 300 },
        toolCalls: [{ name: 'report_review', input: { criteria: [
          { id: 'test-unasked', verdict: 'fail', reason: 'checks a detail the instruction never states', evidence: [{ file: FILE, startLine: line, endLine: line, quote }] },
          { id: 'spec-ambiguous', verdict: 'fail', reason: 'made up', evidence: [{ file: FILE, startLine: 1, endLine: 1, quote: 'this text is nowhere' }] },
        ] } }],
      }),
    });
    process.env.ANTHROPIC_BASE_URL = server.url;
  });

  after(async () => {
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    if (savedEnv.ANTHROPIC_BASE_URL === undefined) delete process.env.ANTHROPIC_BASE_URL;
    else process.env.ANTHROPIC_BASE_URL = savedEnv.ANTHROPIC_BASE_URL;
    await server?.close();
    fs.rmSync(path.join(workspaceDir(), '.taskwright', 'review-cache'), { recursive: true, force: true });
  });

  it('shows only the claim whose quote is real, at its range, as a model diagnostic', async function () {
    this.timeout(120_000);
    await api();
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);
    const review = await vscode.commands.executeCommand<TaskReview | undefined>('taskwright.review.task', path.join(workspaceDir(), 'tasks', TASK));
    assert.ok(review, 'no review returned (see the Taskwright log)');
    assert.equal(review.model, 'claude-sonnet-5-5');
    assert.equal(review.unsupported, 1);
    const diags = vscode.languages.getDiagnostics(exampleUri(TASK, FILE)).filter((d) => d.source === 'taskwright-review');
    assert.equal(diags.length, 1);
    const d = diags[0]!;
    assert.equal(d.code, 'review-test-unasked');
    assert.match(d.message, /^\[model claude-sonnet-5-5\] checks a detail/);
    assert.equal(d.range.start.line, line - 1);
    const text = fs.readFileSync(exampleUri(TASK, FILE).fsPath, 'utf8').split('\n')[line - 1]!;
    assert.equal(text.slice(d.range.start.character, d.range.end.character), quote);
    // The Task Explorer's status lists the review beside the audit (its tooltip; the icon takes the worst).
    const a = await api();
    const st = a.taskExplorer.status(path.join(workspaceDir(), 'tasks', TASK)).find((s) => s.source === 'review');
    assert.deepEqual(st && [st.level, st.summary], ['warning', '1 finding(s) by claude-sonnet-5-5, 1 unsupported claim(s) dropped']);
  });
});
