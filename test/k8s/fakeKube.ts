// A local Kubernetes API server for tests, written from the API reference, backed by the real Docker
// engine: `startFakeKube()` listens on 127.0.0.1 (plain http), writes a kubeconfig for it, and
// serves the subset a trial backend uses (see test/k8s/README.md). Pods are Docker containers and
// exec really runs; scheduling and the registry are faked. Every object received is checked
// against the official OpenAPI schemas and each violation is kept for the test to assert on.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import type { IPod } from 'kubernetes-models/v1/Pod';
import { removeAllOf } from './docker';
import { type ExecDrop, ExecHub, type ExecRecord } from './exec';
import { JobController } from './jobs';
import { type Fault, Router, type RequestRecord } from './router';
import { defaultNodeCpu, defaultNodeMemory, PodController } from './pods';
import { NAMESPACES, PODS } from './status';
import { Store } from './store';
import type { Violation } from './validate';

export interface FakeKubeOptions {
  /** Namespaces that exist from the start ("default" always does). */
  readonly namespaces?: readonly string[];
  /** The kubeconfig context's namespace; "default" unless set. */
  readonly namespace?: string;
  /** Maps a pod's image to a local one (the fake's registry); identity by default. */
  readonly resolveImage?: (ref: string) => string;
  /** Run pods that a deny-all-egress NetworkPolicy selects with no network (off: policies are only stored). */
  readonly enforceNetworkPolicies?: boolean;
  readonly maxPods?: number;
  readonly nodeCpu?: number;
  readonly nodeMemory?: number;
  readonly imageRetryMs?: number;
  readonly restartBackoffMs?: number;
  /** Watch events kept for `resourceVersion` replays (5000); older versions get 410 Expired. */
  readonly watchHistory?: number;
  /** How often a watch with `allowWatchBookmarks` gets a BOOKMARK (5000 ms). */
  readonly bookmarkMs?: number;
  readonly docker?: Docker;
}

export interface FakeKube {
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly token: string;
  /** This server's id: the value of the `taskwright.fake-kube` label on every Docker object it creates. */
  readonly id: string;
  /** Every pod held now, as GET would return it. */
  pods(namespace?: string): IPod[];
  /** Every object refused or flagged by the schema and semantic checks, in arrival order. */
  violations(): readonly Violation[];
  /** Every request served: method, path and query, answer code. */
  requests(): readonly RequestRecord[];
  /** Every exec session: command, protocol, exit code, whether it was dropped. */
  execs(): readonly ExecRecord[];
  /** Requests the fake does not implement (answered 405/404): the backend uses more than the subset. */
  unsupported(): readonly RequestRecord[];
  /** Docker container ids of the pods held. */
  containers(): string[];
  /** The next `count` requests matching (method, path regexp) fail with `code` (429 carries Retry-After). */
  failNext(count: number, fault?: Partial<Omit<Fault, 'remaining'>>): void;
  /** New pods stay Pending with PodScheduled False, reason Unschedulable (undefined: schedule again). */
  setUnschedulable(message: string | boolean): void;
  setMaxPods(n: number | undefined): void;
  /** The kubelet evicts a pod: containers killed, phase Failed, reason Evicted. */
  evict(name: string, namespace?: string): Promise<IPod | undefined>;
  /** Arms a drop for the next exec session (the socket is destroyed, no Status is sent). */
  dropNextExec(drop?: ExecDrop): void;
  /** Ends every open watch from the server side. */
  closeWatches(): void;
  /** Compacts the watch history: a watch resumed from any version held now gets ERROR 410 Expired. */
  compactHistory(): void;
  /** Stops the server and removes every container and volume it created. */
  close(): Promise<void>;
}

export async function startFakeKube(opts: FakeKubeOptions = {}): Promise<FakeKube> {
  const docker = opts.docker ?? new Docker();
  const serverId = randomUUID().slice(0, 12);
  const token = randomBytes(16).toString('hex');
  const store = new Store(opts.watchHistory);
  const controller = new PodController({
    docker, store, serverId, resolveImage: opts.resolveImage ?? ((r) => r),
    imageRetryMs: opts.imageRetryMs ?? 1000, restartBackoffMs: opts.restartBackoffMs ?? 1000,
    enforceNetworkPolicies: opts.enforceNetworkPolicies ?? false,
    nodeCpu: opts.nodeCpu ?? defaultNodeCpu(), nodeMemory: opts.nodeMemory ?? defaultNodeMemory(),
  });
  controller.maxPods = opts.maxPods;
  for (const ns of new Set(['default', 'kube-system', opts.namespace ?? 'default', ...(opts.namespaces ?? [])])) {
    store.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } } as never, undefined);
  }
  const execHub = new ExecHub(docker);
  const jobs = new JobController(store, controller);
  const router = new Router({ store, controller, execHub, token, jobs, ...(opts.bookmarkMs ? { bookmarkMs: opts.bookmarkMs } : {}) });
  const server = http.createServer((req, res) => router.handle(req, res));
  server.on('upgrade', (req, socket, head) => router.upgrade(req, socket, head as Buffer));
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-kube-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  // JSON is YAML: KubeConfig.loadFromFile reads it. Plain http needs insecure-skip-tls-verify in client-node.
  fs.writeFileSync(kubeconfigPath, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'fake-kube',
    clusters: [{ name: 'fake-kube', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'fake-kube', user: { token } }],
    contexts: [{ name: 'fake-kube', context: { cluster: 'fake-kube', user: 'fake-kube', namespace: opts.namespace ?? 'default' } }],
  }, null, 2));
  let closed = false;
  return {
    url, kubeconfigPath, token, id: serverId,
    pods: (ns) => store.list<IPod>(PODS, ns).map((p) => ({ ...p, apiVersion: 'v1', kind: 'Pod' })),
    violations: () => router.violations,
    requests: () => router.log,
    execs: () => execHub.records,
    unsupported: () => router.unsupported,
    containers: () => controller.dockerIds(),
    failNext: (count, f = {}) => { router.faults.push({ code: f.code ?? 500, remaining: count, ...(f.method ? { method: f.method } : {}), ...(f.path ? { path: f.path } : {}), ...(f.retryAfterSeconds !== undefined ? { retryAfterSeconds: f.retryAfterSeconds } : {}) }); },
    setUnschedulable: (m) => { controller.unschedulable = m === false ? undefined : m === true ? '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.' : m; controller.reconcile(); },
    setMaxPods: (n) => { controller.maxPods = n; controller.reconcile(); },
    evict: async (name, ns = opts.namespace ?? 'default') => controller.fail(store.mustGet<IPod>(PODS, ns, name), 'Evicted', 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 10Mi. '),
    dropNextExec: (d = {}) => { execHub.drops.push(d); },
    closeWatches: () => router.watches.closeAll(),
    compactHistory: () => store.compact(),
    close: async () => {
      if (closed) return;
      closed = true;
      router.watches.closeAll();
      execHub.close();
      jobs.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await controller.close();
      if (controller.usedDocker) await removeAllOf(docker, serverId);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
