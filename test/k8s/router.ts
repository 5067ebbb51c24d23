// The fake's HTTP side: paths as the API reference lays them out, bearer-token auth, JSON bodies
// checked by ./validate before they are stored, list/watch with label and field selectors, delete
// with DeleteOptions, and the fault knobs (the next N requests fail) applied before any of it.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { ExecHub } from './exec';
import type { JobController } from './jobs';
import type { PodController } from './pods';
import { fieldSelector, labelSelector } from './selectors';
import {
  apiVersionOf, badRequest, deleted, forbidden, internalError, JOBS, KubeError, methodNotAllowed, NAMESPACES, NETWORK_POLICIES,
  notFound, pathNotFound, PODS, type Resource, status, tooManyRequests, unauthorized,
} from './status';
import type { KubeObject, Store } from './store';
import { admit, type Violation } from './validate';
import { Watches } from './watch';

export interface Fault {
  readonly code: number;
  remaining: number;
  readonly method?: string;
  /** Matched against the path (without the query). */
  readonly path?: RegExp;
  readonly retryAfterSeconds?: number;
}

export interface RequestRecord { readonly method: string; readonly path: string; code: number }

export interface RouterDeps {
  readonly store: Store;
  readonly controller: PodController;
  readonly execHub: ExecHub;
  readonly token: string;
  jobs?: JobController;
  readonly bookmarkMs?: number;
}

interface Route { readonly r: Resource; readonly ns: string | undefined; readonly name: string | undefined; readonly sub: string | undefined }

const RESOURCES: readonly Resource[] = [PODS, NAMESPACES, JOBS, NETWORK_POLICIES];

function route(p: string): Route | undefined {
  for (const r of RESOURCES) {
    const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    if (!p.startsWith(`${base}/`)) continue;
    const parts = p.slice(base.length + 1).split('/').map(decodeURIComponent);
    if (!r.namespaced) {
      if (parts[0] === r.plural && parts.length <= 3) return { r, ns: undefined, name: parts[1], sub: parts[2] };
      continue;
    }
    if (parts[0] === r.plural && parts.length === 1) return { r, ns: undefined, name: undefined, sub: undefined };
    if (parts[0] === 'namespaces' && parts[2] === r.plural && parts.length <= 5 && parts[1]) return { r, ns: parts[1], name: parts[3], sub: parts[4] };
  }
  return undefined;
}

const podFields = (o: unknown): Record<string, string> => {
  const p = o as IPod;
  return { 'metadata.name': p.metadata?.name ?? '', 'metadata.namespace': p.metadata?.namespace ?? '', 'status.phase': p.status?.phase ?? '', 'spec.nodeName': p.spec?.nodeName ?? '', 'spec.restartPolicy': p.spec?.restartPolicy ?? '' };
};
const metaFields = (o: unknown): Record<string, string> => {
  const m = (o as KubeObject).metadata;
  return { 'metadata.name': m?.name ?? '', 'metadata.namespace': m?.namespace ?? '' };
};

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try { return JSON.parse(text); } catch (e) { throw badRequest(`error decoding request body: ${e instanceof Error ? e.message : String(e)}`); }
}

export class Router {
  readonly faults: Fault[] = [];
  readonly log: RequestRecord[] = [];
  readonly violations: Violation[] = [];
  readonly unsupported: RequestRecord[] = [];
  readonly watches: Watches;

  constructor(private readonly d: RouterDeps) {
    this.watches = new Watches(d.store, (r, o) => this.present(r, o), d.bookmarkMs);
  }

  private present(r: Resource, o: KubeObject): KubeObject {
    return { apiVersion: apiVersionOf(r), kind: r.kind, ...o };
  }

  /** Auth, then any armed fault: both answer before routing, as a real front door does. */
  private gate(req: IncomingMessage, url: URL): void {
    if (req.headers.authorization !== `Bearer ${this.d.token}`) throw unauthorized();
    const f = this.faults.find((x) => x.remaining > 0 && (!x.method || x.method.toUpperCase() === req.method) && (!x.path || x.path.test(url.pathname)));
    if (!f) return;
    f.remaining--;
    if (f.code === 429) throw tooManyRequests(f.retryAfterSeconds ?? 1);
    if (f.code === 403) {
      const rt = route(url.pathname);
      throw forbidden(rt?.r ?? PODS, (req.method ?? 'get').toLowerCase(), rt?.ns, rt?.name);
    }
    if (f.code === 503) throw new KubeError(503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'), f.retryAfterSeconds ? { 'retry-after': String(f.retryAfterSeconds) } : {});
    if (f.code === 504) throw new KubeError(504, status(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded'));
    throw internalError('fake-kube: injected fault');
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake-kube');
    const rec: RequestRecord = { method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, code: 200 };
    this.log.push(rec);
    const send = (code: number, obj: unknown, headers: Record<string, string> = {}): void => {
      rec.code = code;
      if (res.headersSent) { res.end(); return; }
      res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'audit-id': randomUUID(), ...headers });
      res.end(JSON.stringify(obj));
    };
    this.dispatch(req, res, url).then((out) => { if (out) send(out.code, out.body); }, (e: unknown) => {
      if (e instanceof KubeError) {
        if ((e.code === 404 && e.body.details && !e.body.details.name) || e.code === 405) this.unsupported.push(rec);
        send(e.code, e.body, { ...e.headers });
      } else send(500, internalError(e instanceof Error ? e.message : String(e)).body);
    });
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake-kube');
    const rec: RequestRecord = { method: 'GET', path: `${url.pathname}${url.search}`, code: 101 };
    this.log.push(rec);
    this.d.execHub.upgrade(req, socket, head, url, () => {
      try {
        this.gate(req, url);
        const rt = route(url.pathname);
        if (!rt || rt.r !== PODS || !rt.ns || !rt.name || (rt.sub !== 'exec' && rt.sub !== 'attach')) throw pathNotFound();
        if (rt.sub === 'attach') throw methodNotAllowed();
        const pod = this.d.store.mustGet<IPod>(PODS, rt.ns, rt.name);
        const names = (pod.spec?.containers ?? []).map((c) => c.name);
        const container = url.searchParams.get('container') || (names.length === 1 ? names[0]! : '');
        if (!container) throw badRequest(`a container name must be specified for pod ${rt.name}, choose one of: [${names.join(' ')}]`);
        if (!names.includes(container)) throw badRequest(`container ${container} is not valid for pod ${rt.name}`);
        const phase = pod.status?.phase;
        if (phase === 'Succeeded' || phase === 'Failed') throw badRequest(`cannot exec into a container in a completed pod; current phase is ${phase}`);
        if (!pod.spec?.nodeName) throw badRequest(`pod ${rt.name} does not have a host assigned`);
        const dockerId = this.d.controller.containerId(pod, container);
        const running = pod.status?.containerStatuses?.find((s) => s.name === container)?.state?.running;
        if (!dockerId || !running) throw badRequest(`unable to upgrade connection: container not found ("${container}")`);
        return { namespace: rt.ns, pod: rt.name, container, dockerId };
      } catch (e) {
        if (e instanceof KubeError) rec.code = e.code;
        throw e;
      }
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, url: URL): Promise<{ code: number; body: unknown } | undefined> {
    this.gate(req, url);
    const method = req.method ?? 'GET';
    const p = url.pathname.replace(/\/$/, '');
    if (p === '/version') return { code: 200, body: { major: '1', minor: '31', gitVersion: 'v1.31.0-fake-kube', platform: `${process.platform}/${process.arch}` } };
    if (p === '/api') return { code: 200, body: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] } };
    const rt = route(p);
    if (!rt) throw pathNotFound();
    const { r, ns, name, sub } = rt;
    const q = url.searchParams;
    if (ns !== undefined && r !== NAMESPACES && !this.d.store.get(NAMESPACES, undefined, ns) && method === 'POST') throw notFound(NAMESPACES, ns);
    if (r === JOBS && !this.d.jobs) throw pathNotFound();
    const request = `${method} ${p}`;
    if (name === undefined) {
      if (method === 'GET') {
        const labels = labelSelector(q.get('labelSelector'));
        const fields = fieldSelector(q.get('fieldSelector'), r === PODS ? podFields : metaFields);
        const matches = (o: KubeObject): boolean => labels(o.metadata?.labels) && fields(o);
        if (['true', '1'].includes(q.get('watch') ?? '')) {
          const t = q.get('timeoutSeconds');
          this.watches.serve(res, { resource: r, namespace: ns, matches, resourceVersion: q.get('resourceVersion'), timeoutSeconds: t ? Number(t) : undefined, bookmarks: q.get('allowWatchBookmarks') === 'true' });
          return undefined;
        }
        const items = this.d.store.list(r, ns).filter(matches);
        return { code: 200, body: { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), metadata: { resourceVersion: this.d.store.resourceVersion }, items } };
      }
      if (method === 'POST' && (ns !== undefined || !r.namespaced)) {
        const obj = await body(req);
        await admit(r, obj, request, (v) => this.violations.push(v));
        const o = obj as KubeObject;
        if (o.metadata?.namespace && ns && o.metadata.namespace !== ns) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
        const dryRun = q.getAll('dryRun').includes('All');
        const prepared = this.prepare(r, o);
        if (dryRun) return { code: 201, body: this.present(r, { ...prepared, metadata: { ...prepared.metadata, ...(ns ? { namespace: ns } : {}), uid: randomUUID(), creationTimestamp: new Date().toISOString() } }) };
        const created = this.d.store.create(r, prepared, r.namespaced ? ns : undefined);
        if (r === PODS) this.d.controller.reconcile();
        if (r === JOBS) this.d.jobs?.created(created);
        return { code: 201, body: this.present(r, this.d.store.get(r, ns, created.metadata?.name ?? '') ?? created) };
      }
      if (method === 'DELETE' && ns !== undefined) {
        const opts = await this.deleteOptions(req, q);
        const labels = labelSelector(q.get('labelSelector'));
        const victims = this.d.store.list(r, ns).filter((o) => labels(o.metadata?.labels));
        const items = victims.map((o) => this.remove(r, ns, o.metadata?.name ?? '', opts).obj);
        return { code: 200, body: { kind: `${r.kind}List`, apiVersion: apiVersionOf(r), metadata: { resourceVersion: this.d.store.resourceVersion }, items } };
      }
      throw methodNotAllowed();
    }
    if (sub === undefined || (sub === 'status' && method === 'GET')) {
      if (method === 'GET') return { code: 200, body: this.present(r, this.d.store.mustGet(r, ns, name)) };
      if (method === 'DELETE') {
        const out = this.remove(r, ns, name, await this.deleteOptions(req, q));
        return { code: out.code, body: out.obj };
      }
      throw methodNotAllowed();
    }
    if (r === PODS && sub === 'log' && method === 'GET') {
      const text = await this.logs(ns ?? '', name, q);
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
      res.end(text);
      return undefined;
    }
    if (r === PODS && (sub === 'exec' || sub === 'attach')) throw badRequest('Upgrade request required');
    throw pathNotFound();
  }

  private prepare(r: Resource, o: KubeObject): KubeObject {
    const base = { ...o, apiVersion: apiVersionOf(r), kind: r.kind };
    if (r === PODS) return this.d.controller.defaults(base as IPod);
    if (r === JOBS && this.d.jobs) return this.d.jobs.defaults(base);
    if (r === NAMESPACES) {
      const name = o.metadata?.name ?? '';
      return { ...base, metadata: { ...o.metadata, labels: { ...o.metadata?.labels, 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } } as KubeObject;
    }
    return base;
  }

  private async deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<{ grace: number | undefined; propagation: string | undefined }> {
    const b = (await body(req)) as { gracePeriodSeconds?: number; propagationPolicy?: string; orphanDependents?: boolean } | undefined;
    const g = q.get('gracePeriodSeconds') ?? b?.gracePeriodSeconds;
    const prop = q.get('propagationPolicy') ?? b?.propagationPolicy ?? (b?.orphanDependents === false ? 'Background' : undefined);
    if (prop !== undefined && !['Orphan', 'Background', 'Foreground'].includes(prop)) throw badRequest(`propagationPolicy: Unsupported value: "${prop}": supported values: "Foreground", "Background", "Orphan"`);
    return { grace: g === undefined || g === null ? undefined : Number(g), propagation: prop };
  }

  private remove(r: Resource, ns: string | undefined, name: string, o: { grace: number | undefined; propagation: string | undefined }): { code: number; obj: unknown } {
    if (r === PODS) return { code: 200, obj: this.present(r, this.d.controller.delete(ns ?? '', name, o.grace)) };
    if (r === JOBS && this.d.jobs) return this.d.jobs.delete(ns ?? '', name, o.propagation);
    if (r === NAMESPACES) {
      const cur = this.d.store.mustGet(r, undefined, name);
      for (const p of this.d.store.list<IPod>(PODS, name)) this.d.controller.delete(name, p.metadata?.name ?? '', 0);
      for (const np of this.d.store.list(NETWORK_POLICIES, name)) this.d.store.remove(NETWORK_POLICIES, name, np.metadata?.name ?? '');
      this.d.store.remove(r, undefined, name);
      return { code: 200, obj: this.present(r, { ...cur, status: { phase: 'Terminating' } } as KubeObject) };
    }
    const gone = this.d.store.remove(r, ns, name);
    if (!gone) throw notFound(r, name);
    return { code: 200, obj: deleted(r, name, gone.metadata?.uid) };
  }

  private async logs(ns: string, name: string, q: URLSearchParams): Promise<string> {
    const pod = this.d.store.mustGet<IPod>(PODS, ns, name);
    const container = q.get('container') ?? pod.spec?.containers?.[0]?.name ?? '';
    const id = this.d.controller.containerId(pod, container);
    if (!id) throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
    return this.d.controller.logs(id, q.get('tailLines') ? Number(q.get('tailLines')) : undefined);
  }
}
