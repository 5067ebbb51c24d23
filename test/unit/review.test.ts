// `taskwright review` against the wire-level server: cited claims are checked against the task's
// own text, the cache keeps an unchanged task from being reviewed twice, and the rubric is a file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { locateQuote } from '../../src/core/review/evidence';
import { parseRubric, RubricError } from '../../src/core/review/rubric';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { GEN_FIXTURES } from '../support/generateDrafts';
import type { ScriptedReply } from '../support/scripted';
import { tempDir } from '../support/tempDir';

const KEY = 'sk-review-unit';
const servers: AnthropicScriptedServer[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of the fixture task in a fresh workspace (the cache lives in the workspace). */
function workspace(): { cwd: string; task: string } {
  const cwd = tempDir('tw-review-');
  dirs.push(cwd);
  fs.cpSync(path.join(GEN_FIXTURES, 'sum-numbers'), path.join(cwd, 'sum-numbers'), { recursive: true });
  return { cwd, task: 'sum-numbers' };
}

/** The model's review: one right claim (the quote is at tests/test_outputs.py:12) and one whose quote is not in the file. */
const REVIEW: ScriptedReply = {
  kind: 'turn',
  toolCalls: [{
    name: 'report_review',
    input: {
      criteria: [
        { id: 'requirement-untested', verdict: 'fail', reason: 'negative numbers are never tested', evidence: [{ file: 'tests/test_outputs.py', startLine: 11, endLine: 12, quote: 'assert total == -3' }] },
        { id: 'spec-ambiguous', verdict: 'fail', reason: 'the exact trailing newline is tested but easy to miss', evidence: [{ file: 'tests/test_outputs.py', startLine: 12, endLine: 12, quote: 'OUTPUT.read_text() == f"{expected()}\\n"' }] },
        { id: 'fake-solution', verdict: 'pass', reason: 'derives the sum', evidence: [] },
      ],
    },
  }],
  usage: { input: 3000, output: 400 },
};

async function run(args: string[], cwd: string, s: AnthropicScriptedServer): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['review', ...args], { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: s.url }, signal: new AbortController().signal });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

void describe('review: cited findings', () => {
  void it('drops a claim whose quote is not at the cited place, and puts a right one at the quoted range', async () => {
    const s = await startAnthropicServer({ apiKey: KEY, script: () => REVIEW });
    servers.push(s);
    const { cwd, task } = workspace();
    const r = await run([task, '--format', 'json'], cwd, s);
    assert.equal(r.code, 1, r.err);
    const json = JSON.parse(r.out) as { tasks: { model: string; unsupported: number; cached: boolean; costUsd: number | null; findings: { rule: string; source: string; file: string; line: number; column: number; endLine: number; endColumn: number; severity: string }[] }[]; costUsd: number | null };
    const t = json.tasks[0]!;
    assert.equal(t.model, 'claude-sonnet-5-5', 'the default model from the live list');
    assert.equal(t.unsupported, 1);
    assert.deepEqual(t.findings.map((f) => [f.rule, f.source, f.file, f.line, f.column, f.endLine, f.endColumn]), [['review-spec-ambiguous', 'review', 'tests/test_outputs.py', 12, 12, 12, 51]]);
    // 3000 in / 400 out at Sonnet 5.5's $2/$10.
    assert.ok(Math.abs((t.costUsd ?? 0) - (3000 * 2 + 400 * 10) / 1e6) < 1e-12);
    // The request: the answer tool forced, one call, the files with line numbers, the rubric's criteria.
    const req = s.requests.find((x) => x.path === '/v1/messages')!;
    assert.deepEqual(req.body.tool_choice, { type: 'tool', name: 'report_review', disable_parallel_tool_use: true });
    assert.match(String((req.body.messages as { content: string }[])[0]!.content), /=== tests\/test_outputs\.py ===\n {3}1\| from pathlib import Path/);
    assert.match(String((req.body.system as { text: string }[])[0]!.text), /- verifier-not-isolated: /);

    // Unchanged task: served from the cache, no second request.
    const again = await run([task, '--format', 'text'], cwd, s);
    assert.equal(s.requests.filter((x) => x.path === '/v1/messages').length, 1);
    assert.match(again.out, /sum-numbers \(claude-sonnet-5-5, cached\)/);
    assert.match(again.out, /sum-numbers\/tests\/test_outputs\.py:12:12 {2}warning {2}review-spec-ambiguous/);
    assert.match(again.out, /1 unsupported claim\(s\) dropped/);
    // A changed file changes the key: reviewed again.
    fs.appendFileSync(path.join(cwd, task, 'instruction.md'), '\nThe file may be empty.\n');
    await run([task, '--format', 'sarif'], cwd, s);
    assert.equal(s.requests.filter((x) => x.path === '/v1/messages').length, 2);
  });

  void it('--batch sends only the tasks not in the cache as one Message Batch, at the batch price', async () => {
    const s = await startAnthropicServer({ apiKey: KEY, script: () => REVIEW, batchPolls: 1 });
    servers.push(s);
    const { cwd, task } = workspace();
    fs.cpSync(path.join(cwd, task), path.join(cwd, 'sum-numbers-copy'), { recursive: true });
    fs.appendFileSync(path.join(cwd, 'sum-numbers-copy', 'instruction.md'), '\nNumbers may be negative.\n');
    await run([task, '--format', 'json'], cwd, s); // caches the first task
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['review', task, 'sum-numbers-copy', '--batch', '--format', 'json'], {
      out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: s.url, TASKWRIGHT_BATCH_POLL_MS: '5' }, signal: new AbortController().signal,
    });
    assert.equal(code, 1, err.join('\n'));
    const batches = [...s.batches.values()];
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0]!.requests.map((r) => r.custom_id), ['review-2'], 'the cached task is not sent');
    const json = JSON.parse(out.join('\n')) as { tasks: { id: string; cached: boolean; costUsd: number | null; findings: { rule: string }[] }[] };
    assert.deepEqual(json.tasks.map((t) => [t.id, t.cached]), [['sum-numbers', true], ['sum-numbers-copy', false]]);
    assert.ok(Math.abs((json.tasks[1]!.costUsd ?? 0) - (3000 * 2 + 400 * 10) / 1e6 / 2) < 1e-12, 'half price in a batch');
    assert.deepEqual(json.tasks[1]!.findings.map((f) => f.rule), ['review-spec-ambiguous']);
  });

  void it('finds a quote across lines and whitespace, and nowhere else', () => {
    const text = 'a\n  def f(x):\n      return   x + 1\nb\n';
    assert.deepEqual(locateQuote(text, { file: 'f', startLine: 2, endLine: 3, quote: 'def f(x): return x + 1' }), { start: { line: 1, character: 2 }, end: { line: 2, character: 20 } });
    assert.equal(locateQuote(text, { file: 'f', startLine: 1, endLine: 1, quote: 'return x + 1' }), undefined, 'the text is real but not at the cited line (one line of slack)');
    assert.equal(locateQuote(text, { file: 'f', startLine: 1, endLine: 9, quote: '' }), undefined);
  });

  void it('reads a rubric file that extends the default, and reports a bad one with its file', () => {
    const r = parseRubric('extends = "default"\n[[criteria]]\nid = "no-gpu"\nquestion = "Does the task avoid needing a GPU?"\nclass = "infra"\nseverity = "info"\n', 'mine.toml');
    assert.equal(r.criteria.at(-1)!.id, 'no-gpu');
    assert.ok(r.criteria.some((c) => c.id === 'answer-hardcodable'));
    const y = parseRubric('criteria:\n  - id: only-one\n    question: Is it fine?\n', 'r.yaml');
    assert.deepEqual(y.criteria.map((c) => [c.id, c.class, c.severity]), [['only-one', 'misalignment', 'warning']]);
    assert.throws(() => parseRubric('[[criteria]]\nid = "Bad Id"\n', 'bad.toml'), (e: unknown) => e instanceof RubricError && /bad\.toml: criteria\[0\]\.id must be .*criteria\[0\]\.question is required/.test(e.message));
  });
});
