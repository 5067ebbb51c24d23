// The fake's etcd: objects by resource, one resourceVersion counter for all of them (as etcd's
// revision), and a bounded history of watch events so `?watch=1&resourceVersion=N` replays what
// happened after N, or answers 410 Expired when N is older than the history.
import { randomUUID } from 'node:crypto';
import type { IObjectMeta } from '@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta';
import { alreadyExists, notFound, type Resource } from './status';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: IObjectMeta;
}

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly type: WatchType;
  readonly resource: Resource;
  /** A copy of the object as it was at this event. */
  readonly object: KubeObject;
  readonly rv: number;
}

/** RFC 3339 with seconds, as metav1.Time marshals. */
export const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const key = (ns: string | undefined, name: string): string => `${ns ?? ''}/${name}`;

export class Store {
  /** `history`: how many events a watch can replay (older resourceVersions get 410 Expired). */
  constructor(private readonly historySize = 5000) {}

  private rv = 1;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoreEvent[] = [];
  private readonly listeners = new Set<(e: StoreEvent) => void>();

  get resourceVersion(): string { return String(this.rv); }

  /** The oldest resourceVersion a watch can resume from. */
  get oldestWatchable(): number { return this.history.length ? this.history[0]!.rv - 1 : this.rv; }

  private table(r: Resource): Map<string, KubeObject> {
    let t = this.objects.get(r.plural);
    if (!t) { t = new Map(); this.objects.set(r.plural, t); }
    return t;
  }

  private emit(type: WatchType, r: Resource, obj: KubeObject): void {
    const e: StoreEvent = { type, resource: r, object: structuredClone(obj), rv: this.rv };
    this.history.push(e);
    if (this.history.length > this.historySize) this.history.shift();
    for (const l of [...this.listeners]) l(e);
  }

  get<T extends KubeObject>(r: Resource, ns: string | undefined, name: string): T | undefined {
    const o = this.table(r).get(key(ns, name));
    return o ? (structuredClone(o) as T) : undefined;
  }

  mustGet<T extends KubeObject>(r: Resource, ns: string | undefined, name: string): T {
    const o = this.get<T>(r, ns, name);
    if (!o) throw notFound(r, name);
    return o;
  }

  list<T extends KubeObject>(r: Resource, ns?: string): T[] {
    return [...this.table(r).values()].filter((o) => ns === undefined || o.metadata?.namespace === ns).map((o) => structuredClone(o) as T);
  }

  /** Stores a new object: uid, resourceVersion, creationTimestamp and (for generateName) its name. */
  create<T extends KubeObject>(r: Resource, obj: T, ns: string | undefined): T {
    const meta: IObjectMeta = { ...obj.metadata };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    const name = meta.name ?? '';
    if (this.table(r).has(key(ns, name))) throw alreadyExists(r, name);
    this.rv++;
    const stored = { ...obj, metadata: { ...meta, ...(r.namespaced ? { namespace: ns } : {}), uid: randomUUID(), resourceVersion: String(this.rv), creationTimestamp: now() } } as T;
    this.table(r).set(key(ns, name), stored);
    this.emit('ADDED', r, stored);
    return structuredClone(stored);
  }

  /** Replaces a stored object (by its namespace and name) with `mutate`'s result; a new resourceVersion. */
  update<T extends KubeObject>(r: Resource, ns: string | undefined, name: string, mutate: (o: T) => void): T | undefined {
    const cur = this.table(r).get(key(ns, name));
    if (!cur) return undefined;
    const next = structuredClone(cur) as T;
    mutate(next);
    // An update that changes nothing is no write (no new resourceVersion, no watch event), as in etcd.
    if (JSON.stringify(next) === JSON.stringify(cur)) return structuredClone(next);
    this.rv++;
    next.metadata = { ...next.metadata, resourceVersion: String(this.rv) };
    this.table(r).set(key(ns, name), next);
    this.emit('MODIFIED', r, next);
    return structuredClone(next);
  }

  remove<T extends KubeObject>(r: Resource, ns: string | undefined, name: string): T | undefined {
    const cur = this.table(r).get(key(ns, name));
    if (!cur) return undefined;
    this.table(r).delete(key(ns, name));
    this.rv++;
    const gone = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(this.rv) } } as T;
    this.emit('DELETED', r, gone);
    return structuredClone(gone);
  }

  /**
   * Compaction, as etcd's: the history is dropped, and the revision has moved on (on a real cluster
   * leases and events write all the time), so every version a watcher holds is now too old (410).
   */
  compact(): void {
    this.rv++;
    this.history.length = 0;
  }

  /** Events after resourceVersion `rv`, or undefined when the history no longer reaches back that far. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.oldestWatchable) return undefined;
    return this.history.filter((e) => e.rv > rv);
  }

  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }
}
