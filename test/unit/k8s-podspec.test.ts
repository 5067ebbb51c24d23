import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL, LABEL_HOST, LABEL_PID, LABEL_RUN, LABEL_TRIAL, type ContainerSpec } from '../../src/core/sandbox/runtime';
import { buildDenyAllPolicy, buildPod, CONTAINER, labelValue, LABEL_POD, ownerLabels, podName } from '../../src/core/sandbox/kubernetes/podSpec';
import { EXEC_PRELUDE, wrapCommand } from '../../src/core/sandbox/kubernetes/podExec';
import { READ_SCRIPT } from '../../src/core/sandbox/kubernetes/podArchive';
import { parseRegistry, qualify, RegistryError, splitRef } from '../../src/core/sandbox/kubernetes/registry';

interface Validatable { validate(): void }
type ModelCtor = new (data: unknown) => Validatable;

/** The official OpenAPI schemas (kubernetes-models is ESM-only: loaded with import()). */
async function models(): Promise<{ Pod: ModelCtor; NetworkPolicy: ModelCtor }> {
  const core = (await import('kubernetes-models/v1')) as unknown as { Pod: ModelCtor };
  const net = (await import('kubernetes-models/networking.k8s.io/v1')) as unknown as { NetworkPolicy: ModelCtor };
  return { Pod: core.Pod, NetworkPolicy: net.NetworkPolicy };
}

const longHost = `build-host-${'x'.repeat(80)}.example.internal`;

function spec(over: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    image: 'taskwright/hello-world:0123456789abcdef',
    name: 'tw-run-20261203-183000-abcd-001-hello-world-oracle-a1-with-a-name-longer-than-sixty-three-characters',
    env: { TEST_DIR: '/tests', LANG: 'C.UTF-8' },
    workdir: '/app',
    labels: { [LABEL]: '1', [LABEL_RUN]: 'run-20261203-183000-abcd', [LABEL_TRIAL]: '001-hello-world-oracle-a1', [LABEL_PID]: '4242', [LABEL_HOST]: longHost },
    limits: { nanoCpus: 1.5e9, memoryBytes: 2048 * 1024 * 1024, pidsLimit: 1024, storageBytes: 4096 * 1024 * 1024 },
    networkMode: 'none',
    deadlineSec: 900,
    ...over,
  };
}

void describe('Kubernetes pod spec', () => {
  void it('builds a Pod and a deny-all NetworkPolicy the official schemas accept', async () => {
    const { Pod, NetworkPolicy } = await models();
    const pod = buildPod(spec(), { namespace: 'trials', image: 'localhost:5000/taskwright/hello-world:0123456789abcdef', activeDeadlineSeconds: 1200, storageBytes: 4096 * 1024 * 1024 });
    new Pod(pod).validate();
    const withUid: V1Pod = { ...pod, metadata: { ...pod.metadata, uid: '2b4c5e2a-9b59-4a4e-9d3c-2a0f5f1d9e11' } };
    const policy = buildDenyAllPolicy(withUid);
    new NetworkPolicy(policy).validate();
    // What a schema cannot say: the isolation the trial needs.
    assert.equal(pod.spec?.automountServiceAccountToken, false);
    assert.equal(pod.spec?.restartPolicy, 'Never');
    assert.equal(pod.spec?.activeDeadlineSeconds, 1200);
    const c = pod.spec?.containers[0];
    assert.equal(c?.name, CONTAINER);
    assert.equal(c?.securityContext?.allowPrivilegeEscalation, false);
    assert.equal(c?.securityContext?.privileged, false);
    assert.deepEqual(c?.resources?.limits, { cpu: '1500m', memory: String(2048 * 1024 * 1024), 'ephemeral-storage': String(4096 * 1024 * 1024) });
    assert.deepEqual(c?.resources?.requests, c?.resources?.limits);
    assert.deepEqual(c?.env, [{ name: 'TEST_DIR', value: '/tests' }, { name: 'LANG', value: 'C.UTF-8' }]);
    assert.equal(c?.workingDir, '/app');
    assert.deepEqual(policy.spec?.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(policy.spec?.ingress, []);
    assert.deepEqual(policy.spec?.egress, []);
    assert.deepEqual(policy.spec?.podSelector?.matchLabels, { [LABEL_POD]: pod.metadata?.name });
    assert.equal(policy.metadata?.ownerReferences?.[0]?.uid, '2b4c5e2a-9b59-4a4e-9d3c-2a0f5f1d9e11');
    assert.equal(policy.metadata?.labels?.[LABEL], '1');
  });

  void it('keeps names and label values within the API limits and the owner labels exact in annotations', () => {
    const pod = buildPod(spec(), { namespace: 'default', image: 'r/x:1', activeDeadlineSeconds: 10 });
    const name = pod.metadata?.name ?? '';
    assert.match(name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(name.length <= 63, name);
    for (const [k, v] of Object.entries(pod.metadata?.labels ?? {})) {
      assert.ok(v.length <= 63, `${k}=${v}`);
      assert.match(v, /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/, `${k}=${v}`);
    }
    // The reaper compares the host exactly: the annotation keeps it whole.
    assert.equal(ownerLabels(pod.metadata)[LABEL_HOST], longHost);
    assert.equal(ownerLabels(pod.metadata)[LABEL_PID], '4242');
    // Distinct long names stay distinct after shortening.
    assert.notEqual(podName(`${'a'.repeat(70)}-1`), podName(`${'a'.repeat(70)}-2`));
    assert.equal(podName('tw-short-name'), 'tw-short-name');
    assert.equal(labelValue('001-task-oracle-a1'), '001-task-oracle-a1');
    assert.match(labelValue('a b/c'), /^a-b-c-[0-9a-f]{8}$/);
  });

  void it('gives no NetworkPolicy owner before the Pod exists (no uid)', () => {
    const pod = buildPod(spec(), { namespace: 'default', image: 'r/x:1', activeDeadlineSeconds: 10 });
    assert.equal(buildDenyAllPolicy(pod).metadata?.ownerReferences, undefined);
  });
});

void describe('Kubernetes exec prelude (run in a real sh)', () => {
  const sh = (cmd: string[]): string => execFileSync(cmd[0] as string, cmd.slice(1), { encoding: 'utf8' });

  void it('applies the environment and working folder before the command, with arguments kept whole', () => {
    const out = sh(wrapCommand(['sh', '-c', 'printf "%s|%s|%s|%s" "$A" "$B" "$(pwd)" "$0"', 'arg with spaces'], { env: { A: 'one two', B: 'x=y' }, workdir: '/tmp' }));
    assert.equal(out, 'one two|x=y|/tmp|arg with spaces');
  });

  void it('fails with 126 when the working folder does not exist, and runs as is for the current user', () => {
    assert.throws(() => sh(wrapCommand(['true'], { workdir: '/no/such/dir' })), (e: { status?: number }) => e.status === 126);
    const uid = String(process.getuid?.() ?? 0);
    assert.equal(sh(wrapCommand(['id', '-u'], { user: uid })).trim(), uid);
    assert.ok(EXEC_PRELUDE.includes('runuser'));
  });

  void it('archives a path under its own name and exits 44 when it is absent', () => {
    assert.throws(() => sh(['/bin/sh', '-c', READ_SCRIPT, 'taskwright', '/no/such/path']), (e: { status?: number }) => e.status === 44);
    const listing = execFileSync('/bin/sh', ['-c', READ_SCRIPT, 'taskwright', '/etc/hostname']).subarray(0, 100).toString('utf8');
    assert.match(listing, /^hostname/);
  });
});

void describe('registry addresses', () => {
  void it('uses plain HTTP for loopback only, keeps a prefix and qualifies local tags', () => {
    const local = parseRegistry('localhost:5000');
    assert.equal(local.base, 'http://localhost:5000');
    const remote = parseRegistry('registry.example.com/team/rl');
    assert.equal(remote.base, 'https://registry.example.com');
    assert.equal(qualify(remote, 'taskwright/hello:abc'), 'registry.example.com/team/rl/taskwright/hello:abc');
    assert.deepEqual(splitRef(remote, 'registry.example.com/team/rl/taskwright/hello:abc'), { repo: 'team/rl/taskwright/hello', tag: 'abc' });
    assert.equal(parseRegistry('http://10.0.0.5:5000').base, 'http://10.0.0.5:5000');
    assert.throws(() => parseRegistry(''), RegistryError);
    assert.throws(() => parseRegistry('host/Bad_Prefix'), RegistryError);
  });
});
