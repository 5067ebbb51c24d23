/**
 * bin/taskwright.js: on Linux `audit` runs in a child process with MALLOC_ARENA_MAX=2 (see the launcher's
 * comment). What a user sees must not change: the same report, the same exit status.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES, makeTask, removeTemp } from './audit-helpers';

const BIN = path.resolve(__dirname, '../../../bin/taskwright.js');

function audit(args: readonly string[], env: NodeJS.ProcessEnv): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, 'audit', ...args], { env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout };
}

void describe('taskwright launcher', () => {
  const { MALLOC_ARENA_MAX: _unset, ...plain } = process.env;
  void it('reports exactly what an audit started with MALLOC_ARENA_MAX set reports (no re-run there)', () => {
    const dir = path.join(FIXTURES, 'clean-harbor');
    const relaunched = audit([dir, '--format', 'json'], plain);
    const direct = audit([dir, '--format', 'json'], { ...plain, MALLOC_ARENA_MAX: '2' });
    assert.equal(relaunched.status, 0);
    assert.equal(relaunched.out, direct.out);
    assert.match(relaunched.out, /"tool": "taskwright"/);
  });
  void it('passes the exit status on: a finding at --fail-on, and a usage error', async () => {
    const dir = await makeTask('clean-harbor', { 'tests/test_more.py': 'def test_runs():\n    print(1)\n' });
    try {
      assert.equal(audit([dir, '--fail-on', 'warning'], plain).status, 1);
      assert.equal(audit([dir, '--fail-on', 'never'], plain).status, 0);
      assert.equal(audit(['--format', 'nope', dir], plain).status, 2);
    } finally {
      await removeTemp(dir);
    }
  });
});
