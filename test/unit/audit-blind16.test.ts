/**
 * What the sixteenth to eighteenth blind held-out sets showed (bench/accuracy/labels/blind16.json …
 * blind18.json), in the style of what was read: Terminal-Bench 1 tasks written with a Dockerfile but
 * without the `docker-compose.yaml` the harness starts them from, or with one under another name.
 * (The scaffold's placeholder instruction is in loader.test.ts, a virtualenv's outward links in
 * host-isolation.test.ts, a solution's relative script in audit-pooled-misses.test.ts, the stock image
 * without tmux in audit-rules-a.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { type CaseBase, makeTask, removeTemp } from './audit-helpers';

type Files = Parameters<typeof makeTask>[1];

/** `rule severity file` of the findings of `rules` on the edited fixture. */
async function found(base: CaseBase, files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    return (await auditTask(await loadTask(dir), { ignoreConfigFiles: true })).filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.file}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

const RULE = ['tb1-compose-missing'];
const COMPOSE = 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n';

void describe('tb1-compose-missing: a Terminal-Bench 1 task its harness cannot start', () => {
  void it('a Dockerfile and no docker-compose.yaml: reported at task.yaml', async () => {
    assert.deepEqual(await found('clean-tb1', { 'docker-compose.yaml': null }, RULE), ['tb1-compose-missing warning task.yaml']);
  });
  void it('a compose file under another name (`dockercompose.yaml`, `docker-compose.yml`) is never read: reported at that file', async () => {
    assert.deepEqual(await found('clean-tb1', { 'docker-compose.yaml': null, 'dockercompose.yaml': COMPOSE }, RULE), ['tb1-compose-missing warning dockercompose.yaml']);
    assert.deepEqual(await found('clean-tb1', { 'docker-compose.yaml': null, 'docker-compose.yml': COMPOSE }, RULE), ['tb1-compose-missing warning docker-compose.yml']);
  });
  void it('no environment at all is missing-environment\'s; a Harbor task has no such file to miss', async () => {
    assert.deepEqual(await found('clean-tb1', { 'docker-compose.yaml': null, Dockerfile: null }, [...RULE, 'missing-environment']), ['missing-environment error task.yaml']);
    assert.deepEqual(await found('clean-harbor', {}, RULE), []);
  });
});
