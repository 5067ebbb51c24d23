/**
 * Which compose service is the agent's, as each harness decides it: Harbor layers the task's
 * environment/docker-compose.yaml over its own file, whose `main` is built from
 * environment/Dockerfile (a file of sidecars alone adds services); Terminal-Bench 1 runs the task's
 * file as is. And Harbor reads `docker-compose.yaml` only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readComposeMain } from '../../src/core/sandbox/compose';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { makeTask, removeTemp } from './audit-helpers';
import { tempDir } from '../support/tempDir';

function composeFile(text: string): { file: string; done: () => void } {
  const dir = tempDir('tw-compose-');
  const file = path.join(dir, 'docker-compose.yaml');
  fs.writeFileSync(file, text);
  return { file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const SIDECAR_ONLY = 'services:\n  helper:\n    image: python:3.12-slim\n    command: ["sleep", "infinity"]\n';

void describe('the agent\'s compose service', () => {
  void it('Harbor: a file of sidecars alone defines no main — the sidecar is never taken for the agent\'s container', () => {
    const c = composeFile(SIDECAR_ONLY);
    try {
      const main = readComposeMain(c.file, {}, 'harbor');
      assert.equal(main.service, 'main');
      assert.equal(main.image, undefined);
      assert.equal(main.build, undefined);
      assert.deepEqual(main.otherServices, ['helper']);
    } finally { c.done(); }
  });

  void it('Harbor: a `main` in the file overrides Harbor\'s own (its build is used)', () => {
    const c = composeFile('services:\n  main:\n    build:\n      context: .\n      dockerfile: Dockerfile.agent\n    working_dir: /srv\n');
    try {
      const main = readComposeMain(c.file, {}, 'harbor');
      assert.equal(main.service, 'main');
      assert.equal(main.build?.dockerfile, 'Dockerfile.agent');
      assert.equal(main.workdir, '/srv');
      assert.deepEqual(main.otherServices, []);
    } finally { c.done(); }
  });

  void it('Terminal-Bench 1: the only service of the file is the client', () => {
    const c = composeFile(SIDECAR_ONLY);
    try {
      const main = readComposeMain(c.file, {}, 'tb1');
      assert.equal(main.service, 'helper');
      assert.equal(main.image, 'python:3.12-slim');
    } finally { c.done(); }
  });
});

void describe('Harbor reads environment/docker-compose.yaml only', () => {
  void it('a `.yml` compose with no Dockerfile is not an environment: missing-environment points at it', async () => {
    const dir = await makeTask('clean-harbor', { 'environment/Dockerfile': null, 'environment/docker-compose.yml': 'services:\n  main:\n    image: python:3.12-slim\n' });
    try {
      const task = await loadTask(dir);
      assert.equal(task.environment.composeFile, undefined);
      const missing = (await auditTask(task, { ignoreConfigFiles: true })).filter((f) => f.rule === 'missing-environment');
      assert.equal(missing.length, 1);
      assert.equal(missing[0]?.file, 'environment/docker-compose.yml');
      assert.match(missing[0]?.message ?? '', /not \.yml/);
    } finally { await removeTemp(dir); }
  });

  void it('the `.yaml` one is the environment', async () => {
    const dir = await makeTask('clean-harbor', { 'environment/Dockerfile': null, 'environment/docker-compose.yaml': 'services:\n  main:\n    image: python:3.12-slim\n' });
    try {
      assert.equal((await loadTask(dir)).environment.composeFile, 'environment/docker-compose.yaml');
    } finally { await removeTemp(dir); }
  });
});
