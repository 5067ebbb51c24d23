// `taskwright fix` against the wire-level server: the proposed change is rechecked on a copy with the
// checker that found the finding, a change that leaves it (or leaves the task) goes back to the model
// as the tool's failed result, and nothing is written to the task without --apply.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { auditTask } from '../../src/core/audit/index';
import { changePathProblem, unifiedDiff } from '../../src/core/fix/changes';
import { loadTask } from '../../src/core/loader/index';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { GEN_FIXTURES } from '../support/generateDrafts';
import { countToolResults, type ScriptedReply } from '../support/scripted';
import { tempDir } from '../support/tempDir';

const KEY = 'sk-fix-unit';
const servers: AnthropicScriptedServer[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const MASKED = [
  '#!/bin/bash', '', 'mkdir -p /logs/verifier', '',
  '/usr/local/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider --rootdir=/tests /tests/test_outputs.py -rA | tee /logs/verifier/pytest.log', '',
  'if [ $? -eq 0 ]; then', '  echo 1 > /logs/verifier/reward.txt', 'else', '  echo 0 > /logs/verifier/reward.txt', 'fi', '',
].join('\n');
const STILL_MASKED = MASKED.replace('mkdir -p /logs/verifier', '# keep a log\nmkdir -p /logs/verifier');
const FIXED = MASKED.replace('#!/bin/bash\n', '#!/bin/bash\nset -o pipefail\n');

/** A workspace holding the fixture task with a verifier that masks pytest's status behind `tee`. */
function workspace(): { cwd: string; task: string; testSh: string } {
  const cwd = tempDir('tw-fix-');
  dirs.push(cwd);
  fs.cpSync(path.join(GEN_FIXTURES, 'sum-numbers'), path.join(cwd, 'sum-numbers'), { recursive: true });
  const testSh = path.join(cwd, 'sum-numbers', 'tests', 'test.sh');
  fs.writeFileSync(testSh, MASKED);
  return { cwd, task: 'sum-numbers', testSh };
}

const answer = (files: { path: string; content: string }[], id: string): ScriptedReply => ({
  kind: 'turn', toolCalls: [{ name: 'submit_fix', id, input: { explanation: 'pytest | tee hid the status; pipefail keeps it', files } }], usage: { input: 2000, output: 300 },
});

async function run(args: string[], cwd: string, s: AnthropicScriptedServer): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['fix', ...args], { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: s.url }, signal: new AbortController().signal });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

type Block = { type: string; tool_use_id?: string; is_error?: boolean; content?: string };

void describe('fix: a change checked again before it is shown', () => {
  void it('sends a change that leaves the finding back, accepts the one that removes it, and writes only with --apply', async () => {
    const s = await startAnthropicServer({
      apiKey: KEY,
      script: (req) => req.path !== '/v1/messages' ? { kind: 'error', status: 404 }
        : countToolResults(req.body) === 0 ? answer([{ path: 'tests/test.sh', content: STILL_MASKED }], 'toolu_first') : answer([{ path: './tests/test.sh', content: FIXED }], 'toolu_second'),
    });
    servers.push(s);
    const w = workspace();
    const r = await run([w.task, '--rule', 'pipeline-status-masked'], w.cwd, s);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /sum-numbers\/tests\/test\.sh:5 {2}pipeline-status-masked: fixed in 2 round\(s\)/);
    assert.match(r.out, /^\+set -o pipefail$/m);
    assert.match(r.out, /^--- a\/tests\/test\.sh$/m);
    assert.equal(fs.readFileSync(w.testSh, 'utf8'), MASKED, 'nothing written without --apply');
    // The second request answers the first tool call with the recheck, as a failed tool result.
    const reqs = s.requests.filter((x) => x.path === '/v1/messages');
    assert.equal(reqs.length, 2);
    const msgs = reqs[1]!.body.messages as { role: string; content: string | Block[] }[];
    const last = msgs[msgs.length - 1]!;
    const result = (last.content as Block[]).find((b) => b.type === 'tool_result');
    assert.equal(result?.tool_use_id, 'toolu_first');
    assert.equal(result?.is_error, true);
    assert.match(String(result?.content), /still reported after your change:\n- tests\/test\.sh:\d+ error \[pipeline-status-masked\]/);
    assert.match(String((msgs[0]!.content as string)), /The finding to fix \(file:line, 1-based\):\n- tests\/test\.sh:5 error \[pipeline-status-masked\]/);
    assert.deepEqual(reqs[0]!.body.tool_choice, { type: 'tool', name: 'submit_fix', disable_parallel_tool_use: true });

    const applied = await run([w.task, '--rule', 'pipeline-status-masked', '--apply', '--format', 'json'], w.cwd, s);
    assert.equal(applied.code, 0, applied.err);
    const json = JSON.parse(applied.out) as { status: string; applied: boolean; files: string[]; rounds: number; costUsd: number | null };
    assert.deepEqual([json.status, json.applied, json.files, json.rounds], ['fixed', true, ['tests/test.sh'], 2]);
    assert.equal(fs.readFileSync(w.testSh, 'utf8'), FIXED);
    assert.equal(fs.statSync(w.testSh).mode & 0o111, fs.statSync(path.join(GEN_FIXTURES, 'sum-numbers/tests/test.sh')).mode & 0o111, 'the mode is kept');
    const findings = await auditTask(await loadTask(path.join(w.cwd, w.task)));
    assert.ok(!findings.some((f) => f.rule === 'pipeline-status-masked'));
  });

  void it('refuses a change outside the task, reports not fixed after the rounds, and writes nothing', async () => {
    const s = await startAnthropicServer({ apiKey: KEY, script: () => answer([{ path: '../outside.sh', content: 'echo pwned\n' }], 'toolu_x') });
    servers.push(s);
    const w = workspace();
    const r = await run([w.task, '--rule', 'pipeline-status-masked', '--rounds', '2', '--apply'], w.cwd, s);
    assert.equal(r.code, 1);
    assert.match(r.out, /not fixed after 2 round\(s\)/);
    assert.match(r.out, /round 1: refused: '\.\.\/outside\.sh' leaves the task folder/);
    assert.ok(!fs.existsSync(path.join(w.cwd, 'outside.sh')));
    assert.equal(fs.readFileSync(w.testSh, 'utf8'), MASKED);
  });

  void it('names the findings when the task has several and no --rule was given; no request is made', async () => {
    const s = await startAnthropicServer({ apiKey: KEY, script: () => ({ kind: 'error', status: 500 }) });
    servers.push(s);
    const w = workspace();
    fs.appendFileSync(path.join(w.cwd, w.task, 'tests', 'test.sh'), 'pip install requests\n');
    const r = await run([w.task], w.cwd, s);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /name one with --rule/);
    assert.match(r.err, /\[pipeline-status-masked\]/);
    assert.equal(s.requests.filter((x) => x.path === '/v1/messages').length, 0);
  });

  void it('checks paths: relative, inside the task, not through a link that leaves it', () => {
    const w = workspace();
    const dir = path.join(w.cwd, w.task);
    fs.symlinkSync(os.tmpdir(), path.join(dir, 'out'));
    assert.equal(changePathProblem(dir, 'tests/test.sh'), undefined);
    assert.equal(changePathProblem(dir, 'tests/new_file.py'), undefined);
    assert.match(changePathProblem(dir, '/etc/passwd') ?? '', /absolute/);
    assert.match(changePathProblem(dir, 'a/../../x') ?? '', /leaves the task folder/);
    assert.match(changePathProblem(dir, 'out/x.sh') ?? '', /through a link/);
    // The same lexical checks as generation (one list, src/core/model/taskPath.ts).
    assert.match(changePathProblem(dir, 'tests\\..\\..\\x') ?? '', /backslash/);
    assert.match(changePathProblem(dir, '.git/config') ?? '', /writes into \.git, which is not part of the task/);
    assert.match(changePathProblem(dir, 'tests//a') ?? '', /empty or '\.' segment/);
    assert.equal(unifiedDiff([{ file: 'n.txt', after: 'x\n' }]).split('\n').slice(0, 2).join('\n'), '--- /dev/null\n+++ b/n.txt');
  });
});
