import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';

const REPO = path.resolve(__dirname, '../../..');

function captureIo(cwd = REPO): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {}, signal: new AbortController().signal }, out, err };
}

void describe('cli: taskwright list', () => {
  void it('prints the documented JSON shape with paths relative to the cwd and 1-based positions', async () => {
    const { io, out, err } = captureIo();
    const code = await main(['list', 'test/fixtures/loader', '--json'], io);
    assert.equal(code, 0, err.join('\n'));
    const json = JSON.parse(out.join('')) as { version: number; tasks: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(json), ['version', 'tasks']);
    assert.equal(json.version, 1);
    assert.equal(json.tasks.length, 9);
    for (const t of json.tasks) {
      assert.deepEqual(Object.keys(t), ['path', 'id', 'format', 'difficulty', 'category', 'tags', 'timeouts', 'problems']);
      assert.deepEqual(Object.keys(t['timeouts'] as object), ['agentSec', 'verifierSec', 'buildSec']);
      for (const p of t['problems'] as object[]) {
        assert.deepEqual(Object.keys(p), ['rule', 'class', 'severity', 'file', 'line', 'column', 'message']);
      }
    }
    const hello = json.tasks.find((t) => t['id'] === 'hello-world');
    assert.deepEqual(hello, {
      path: 'test/fixtures/loader/tb1/hello-world',
      id: 'hello-world',
      format: 'tb1',
      difficulty: 'easy',
      category: 'file-operations',
      tags: ['file-operations', 'beginner'],
      timeouts: { agentSec: 900, verifierSec: 180, buildSec: 600 },
      problems: [],
    });
    const broken = json.tasks.find((t) => t['id'] === 'toml-syntax-error');
    assert.deepEqual((broken?.['problems'] as object[])[0], {
      rule: 'config-parse-error',
      class: 'invalidity',
      severity: 'error',
      file: 'task.toml',
      line: 9,
      column: 19,
      message: 'toml-syntax-error: task.toml is not valid TOML: control characters are not allowed in strings (is a closing quote missing?)',
    });
    const noInstruction = json.tasks.find((t) => t['id'] === 'yaml-no-instruction');
    const missing = (noInstruction?.['problems'] as { rule: string; line: number | null; column: number | null }[]).find((p) => p.rule === 'missing-instruction');
    assert.deepEqual([missing?.line, missing?.column], [null, null]);
  });

  void it('defaults to the current folder and prints one line per task, then its problems', async () => {
    const { io, out } = captureIo(path.join(REPO, 'test/fixtures/loader/malformed'));
    assert.equal(await main(['list'], io), 0);
    const text = out.join('\n');
    const lines = text.split('\n');
    assert.match(lines[0] ?? '', /^harbor-bad-values\s+harbor\s+unknown\s+software_engineering\s+10 problems$/);
    assert.ok(lines.includes('  toml-syntax-error/task.toml:9:19 error config-parse-error toml-syntax-error: task.toml is not valid TOML: control characters are not allowed in strings (is a closing quote missing?)'), text);
    assert.ok(lines.some((l) => /^ {2}yaml-no-instruction\/task\.yaml error missing-instruction /.test(l)), text);
    assert.match(lines[lines.length - 1] ?? '', /^4 tasks, \d+ problems \(\d+ errors\)$/);
  });

  void it('exits 2 with a clear message for a path that does not exist', async () => {
    const { io, out, err } = captureIo();
    assert.equal(await main(['list', 'no/such/folder'], io), 2);
    assert.equal(out.length, 0);
    assert.match(err.join('\n'), /no such file or folder: no\/such\/folder/);
  });

  void it('exits 2 on an unknown option and 0 for --help', async () => {
    const bad = captureIo();
    assert.equal(await main(['list', '--jsn'], bad.io), 2);
    const help = captureIo();
    assert.equal(await main(['list', '--help'], help.io), 0);
    assert.match(help.out.join('\n'), /taskwright list \[PATH\.\.\.\] \[--json\]/);
  });
});
