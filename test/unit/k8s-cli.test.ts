import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseCommandArgs, UsageError, type CliIo } from '../../src/cli/command';
import { runCommand } from '../../src/cli/commands/run';
import { validateCommand } from '../../src/cli/commands/validate';
import { enginesOf } from '../../src/cli/engines';
import { tempDir } from '../support/tempDir';

function kubeconfig(namespace?: string): string {
  const dir = tempDir('tw-kcfg-');
  const file = path.join(dir, 'config');
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://10.1.2.3:6443' } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', ...(namespace ? { namespace } : {}) } }],
  }));
  return file;
}

const io = (env: NodeJS.ProcessEnv): CliIo => ({ out: () => undefined, err: () => undefined, cwd: process.cwd(), env, signal: new AbortController().signal });
const usage = (re: RegExp) => (e: unknown): boolean => e instanceof UsageError && re.test(e.message);

void describe('--backend on the command line', () => {
  void it('connects run and validate to the cluster of the kubeconfig, the namespace from the option or the context', () => {
    const env = { KUBECONFIG: kubeconfig('rl') };
    for (const cmd of [runCommand, validateCommand]) {
      const e = enginesOf(parseCommandArgs(cmd, ['t', '--backend', 'kubernetes', '--registry', 'localhost:5000']), io(env), 7);
      assert.equal(e.runtime.endpoint, 'kubernetes:https://10.1.2.3:6443/namespaces/rl', cmd.name);
      assert.equal(e.runtime.backend, 'kubernetes');
      assert.equal(e.concurrency, 7);
      assert.equal(e.kubernetes?.budget.slots, 7);
    }
    const ns = enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'kubernetes', '--registry', 'r.example.com/x', '--namespace', 'trials']), io(env), 2);
    assert.equal(ns.runtime.endpoint, 'kubernetes:https://10.1.2.3:6443/namespaces/trials');
    const fromEnv = enginesOf(parseCommandArgs(runCommand, ['t']), io({ ...env, TASKWRIGHT_BACKEND: 'kubernetes', TASKWRIGHT_REGISTRY: 'localhost:5000' }), 2);
    assert.equal(fromEnv.runtime.backend, 'kubernetes');
    assert.equal(enginesOf(parseCommandArgs(runCommand, ['t']), io({}), 2).runtime.backend, undefined);
  });

  void it('refuses what does not fit together, as usage errors', () => {
    const env = { KUBECONFIG: kubeconfig() };
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'kubernetes']), io(env), 2), usage(/needs a registry/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'kubernetes', '--registry', 'r:5000', '--engine', 'unix:///a.sock']), io(env), 2), usage(/--engine/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--registry', 'r:5000']), io(env), 2), usage(/--backend kubernetes/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'nomad']), io(env), 2), usage(/docker\|kubernetes/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t']), io({ TASKWRIGHT_BACKEND: 'k8s' }), 2), usage(/TASKWRIGHT_BACKEND/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'kubernetes', '--registry', 'r:5000/Bad']), io(env), 2), usage(/--registry/));
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--backend', 'kubernetes', '--registry', 'r:5000']), io({ KUBECONFIG: '/no/such/kubeconfig', HOME: '/nonexistent' }), 2), usage(/cluster|kubeconfig/));
  });
});
