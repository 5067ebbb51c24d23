import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node';
import { apiError, execExitCode, isTransientApiError, KubeApiError, podLost, podStartVerdict, retryAfterSec } from '../../src/core/sandbox/kubernetes/classify';
import { PodBudget } from '../../src/core/sandbox/kubernetes/budget';

function pod(status: V1Pod['status'], meta: V1Pod['metadata'] = {}): V1Pod {
  return { metadata: { name: 'tw-p', ...meta }, spec: { containers: [{ name: 'trial' }], activeDeadlineSeconds: 600 }, status };
}

const statusBody = (code: number, reason: string, message: string): string => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

void describe('Pod start verdicts', () => {
  void it('waits while Pending, is ready when the container runs', () => {
    assert.equal(podStartVerdict(pod({ phase: 'Pending' }), 100, 300_000, 'img').state, 'wait');
    assert.equal(podStartVerdict(pod({ phase: 'Running', containerStatuses: [{ name: 'trial', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] }), 100, 300_000, 'img').state, 'ready');
  });

  void it('calls an Unschedulable Pod infra only after the pending limit, and flags it for back-pressure before', () => {
    const p = pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient cpu.' }] });
    const early = podStartVerdict(p, 1_000, 60_000, 'img');
    assert.equal(early.state, 'wait');
    assert.equal(early.unschedulable, true);
    const late = podStartVerdict(p, 61_000, 60_000, 'img');
    assert.equal(late.state, 'infra');
    assert.equal(late.error?.kind, 'unschedulable');
    assert.equal(late.error?.retryable, true);
    assert.match(late.error?.message ?? '', /Insufficient cpu/);
  });

  void it('calls image pull errors infra at once; an invalid name is not retried', () => {
    const waiting = (reason: string): V1Pod => pod({ phase: 'Pending', containerStatuses: [{ name: 'trial', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason, message: 'manifest unknown' } } }] });
    for (const r of ['ErrImagePull', 'ImagePullBackOff']) {
      const v = podStartVerdict(waiting(r), 10, 300_000, 'reg/taskwright/x:1');
      assert.equal(v.error?.kind, 'image-pull', r);
      assert.equal(v.error?.retryable, true);
      assert.match(v.error?.message ?? '', /images push/);
    }
    assert.equal(podStartVerdict(waiting('InvalidImageName'), 10, 300_000, 'x').error?.retryable, false);
    assert.equal(podStartVerdict(waiting('CreateContainerConfigError'), 10, 300_000, 'x').error?.kind, 'container-start');
  });

  void it('tells a Pod the cluster took away from one whose container stopped by itself', () => {
    assert.equal(podLost(pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' }))?.kind, 'evicted');
    assert.equal(podLost(pod({ phase: 'Running', conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] }))?.kind, 'evicted');
    assert.equal(podLost(pod({ phase: 'Running' }, { deletionTimestamp: new Date() }))?.kind, 'evicted');
    const deadline = podLost(pod({ phase: 'Failed', reason: 'DeadlineExceeded' }));
    assert.equal(deadline?.kind, 'harness-timeout');
    assert.equal(deadline?.retryable, false);
    // `kill 1` inside the Pod: the container ended by itself; not the cluster's doing.
    assert.equal(podLost(pod({ phase: 'Failed', containerStatuses: [{ name: 'trial', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'Error' } } }] })), undefined);
  });
});

void describe('API errors', () => {
  void it('counts 5xx, 429 and connection failures as transient infra, honouring Retry-After', () => {
    const e500 = new ApiException(500, 'Unknown API Status Code!', statusBody(500, 'InternalError', 'etcdserver: request timed out'), {});
    assert.equal(isTransientApiError(e500), true);
    const mapped = apiError(e500, 'create Pod p', 'https://k');
    assert.ok(mapped instanceof KubeApiError);
    assert.equal(mapped.kind, 'api-error');
    assert.equal(mapped.retryable, true);
    assert.match(mapped.message, /etcdserver: request timed out/);
    const e429 = new ApiException(429, 'x', statusBody(429, 'TooManyRequests', 'slow down'), { 'retry-after': '3' });
    assert.equal(isTransientApiError(e429), true);
    assert.equal(retryAfterSec(e429), 3);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { cause: { code: 'ECONNREFUSED' } });
    assert.equal(isTransientApiError(refused), true);
    assert.equal(apiError(refused, 'list Pods', 'https://k').kind, 'engine-unreachable');
    assert.equal(isTransientApiError(new Error('Unexpected server response: 503')), true);
  });

  void it('does not retry refusals: credentials, invalid objects; a full quota is back-pressure', () => {
    const forbidden = apiError(new ApiException(403, 'x', statusBody(403, 'Forbidden', 'pods is forbidden: User "u" cannot create resource "pods"'), {}), 'create Pod p', 'https://k');
    assert.equal(forbidden.retryable, false);
    assert.match(forbidden.message, /Role/);
    const invalid = apiError(new ApiException(422, 'x', statusBody(422, 'Invalid', 'spec.containers[0].image: Required value'), {}), 'create Pod p', 'https://k');
    assert.equal(invalid.retryable, false);
    const quota = apiError(new ApiException(403, 'x', statusBody(403, 'Forbidden', 'exceeded quota: compute, requested: cpu=2'), {}), 'create Pod p', 'https://k');
    assert.equal(quota.kind, 'unschedulable');
    assert.equal(quota.retryable, true);
    assert.equal((apiError(new ApiException(404, 'x', statusBody(404, 'NotFound', 'pods "p" not found'), {}), 'read', 'k') as KubeApiError).status, 404);
  });

  void it('reads the exit code from the exec status channel', () => {
    assert.equal(execExitCode({ status: 'Success' }), 0);
    assert.equal(execExitCode({ status: 'Failure', reason: 'NonZeroExitCode', message: 'command terminated with non-zero exit code', details: { causes: [{ reason: 'ExitCode', message: '3' }] } }), 3);
    assert.equal(execExitCode({ status: 'Failure', message: 'exec: "nope": executable file not found in $PATH' }), 127);
  });
});

void describe('Pod budget', () => {
  void it('holds at most `slots` Pods and wakes a waiter on release', async () => {
    const b = new PodBudget(2, 5_000);
    await b.acquire();
    await b.acquire();
    let third = false;
    const p = b.acquire().then(() => { third = true; });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(third, false);
    b.release();
    await p;
    assert.equal(third, true);
    assert.equal(b.inUse, 2);
  });

  void it('creates no new Pod while one waits for a node (back-pressure), and resumes once it is placed', async () => {
    let now = 0;
    const b = new PodBudget(4, 1_000, () => now);
    await b.acquire();
    b.podPending('a');
    let second = false;
    now = 2_000; // 'a' has had no node for longer than the grace period
    const p = b.acquire().then(() => { second = true; });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(b.congested, true);
    assert.equal(second, false);
    b.podProgress('a', { scheduled: true, unschedulable: false });
    await p;
    assert.equal(second, true);
    // Unschedulable blocks at once, whatever its age; settling it frees the way.
    b.podPending('b');
    b.podProgress('b', { scheduled: false, unschedulable: true });
    assert.equal(b.congested, true);
    b.podSettled('b');
    assert.equal(b.congested, false);
  });

  void it('rejects a waiter whose trial is cancelled', async () => {
    const b = new PodBudget(1);
    await b.acquire();
    const ctl = new AbortController();
    const p = b.acquire(ctl.signal);
    ctl.abort();
    await assert.rejects(p, /cancelled/);
    assert.equal(b.inUse, 1);
  });
});
