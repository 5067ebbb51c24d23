/**
 * The audit pool: records in the order given, the same as auditing in one thread, and a worker that
 * dies on a task (its heap limit reached) costs no task its result.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditDirs } from '../../src/core/audit/pool';
import type { AuditRecord } from '../../src/core/audit/record';
import { FIXTURES } from './audit-helpers';

async function collect(dirs: readonly string[], options: Parameters<typeof auditDirs>[1]): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for await (const r of auditDirs(dirs, options)) out.push(r);
  return out;
}

const summary = (rs: readonly AuditRecord[]): string[] => rs.map((r) => `${path.basename(r.dir)} ${r.findings.map((f) => f.fp).sort().join(',')}`);

void describe('audit pool', () => {
  let root = '';
  const dirs: string[] = [];
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'tw-pool-'));
    // Different fixtures, so a record landing at the wrong index shows.
    for (const [k, base] of ['clean-harbor', 'clean-tb1', 'clean-harbor', 'clean-tb1', 'clean-harbor'].entries()) {
      const dest = path.join(root, `t${k}`);
      await fs.cp(path.join(FIXTURES, base), dest, { recursive: true });
      dirs.push(dest);
    }
    // One task with a real defect, so records differ in findings too.
    await fs.writeFile(path.join(dirs[2] as string, 'tests', 'test_more.py'), 'def test_runs():\n    print(1)\n');
  });
  after(async () => { await fs.rm(root, { recursive: true, force: true }); });

  void it('yields every task in the order given, as auditing in one thread does', async () => {
    const one = await collect(dirs, { jobs: 1 });
    assert.deepEqual(one.map((r) => r.dir), dirs);
    assert.ok(one[2]?.findings.some((f) => f.rule === 'assertion-free-test'), 'the edited task has its finding');
    assert.deepEqual(summary(await collect(dirs, { jobs: 2 })), summary(one));
  });

  void it('a worker that runs out of heap costs no task: each is audited again in this thread', async () => {
    const one = await collect(dirs, { jobs: 1 });
    // A heap no worker can audit in: every worker dies, every task still gets its record.
    assert.deepEqual(summary(await collect(dirs, { jobs: 2, workerHeapMb: 1 })), summary(one));
  });
});
