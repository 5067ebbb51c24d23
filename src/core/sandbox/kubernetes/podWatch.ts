import { Watch, type V1Pod } from '@kubernetes/client-node';
import { statusOf, type KubeApi } from './kubeApi';

/**
 * The runtime's Pods as the API server streams them: one watch (`GET …/pods?watch=1`) selecting
 * the Pods of this client by label, resumed from the last resourceVersion seen (bookmarks keep it
 * fresh) when the stream ends, and started again from a list when the server says the version is
 * too old (410 Gone / Expired) or the watch fails. Starting Pods wait on its events rather than
 * polling, and a Pod taken away during a trial (evicted, deleted, at its deadline) is seen as it
 * happens. While the watch is down, callers read the Pod themselves (`healthy` is false).
 */
export interface WatchStats {
  /** Watch requests made (the first and every resume). */
  watches: number;
  /** Lists made: the first, and each one after a 410 or a failed watch. */
  lists: number;
  events: number;
}

interface Tracked {
  pod?: V1Pod;
  gone: boolean;
  readonly waiters: Set<() => void>;
  readonly onChange?: (pod: V1Pod | undefined) => void;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

export class PodWatch {
  readonly stats: WatchStats = { watches: 0, lists: 0, events: 0 };
  private readonly tracked = new Map<string, Tracked>();
  private rv: string | undefined;
  private loop: Promise<void> | undefined;
  private stop = new AbortController();
  private current: AbortController | undefined;
  private connected = false;

  /** `selector`: a label selector matching every Pod this client creates (and, ideally, only those). */
  constructor(private readonly api: KubeApi, private readonly selector: string, private readonly o: {
    readonly retryMs?: number;
    readonly timeoutSec?: number;
    /** The credentials may not list or watch Pods (401/403): said once; the watch is tried again only now and then. */
    readonly onForbidden?: (detail: string) => void;
  } = {}) {}

  private forbiddenSaid = false;

  /** After a refused list or watch: a Role without `watch` would otherwise be asked every second. */
  private backoff(code: number | undefined, detail: string): number {
    if (code !== 401 && code !== 403) return this.o.retryMs ?? 1_000;
    if (!this.forbiddenSaid) { this.forbiddenSaid = true; this.o.onForbidden?.(detail); }
    return 30_000;
  }

  /** True while a watch stream is open: what it has not said has not happened. */
  get healthy(): boolean {
    return this.connected;
  }

  /** Follows a Pod (created just now); `onChange` hears each new state, and undefined when it is gone. */
  track(name: string, onChange?: (pod: V1Pod | undefined) => void): void {
    this.tracked.set(name, { gone: false, waiters: new Set(), ...(onChange ? { onChange } : {}) });
    if (!this.loop || this.stop.signal.aborted) {
      this.stop = new AbortController();
      const loop: Promise<void> = this.run(this.stop.signal).finally(() => { if (this.loop === loop) { this.loop = undefined; this.connected = false; } });
      this.loop = loop;
    }
  }

  /** Pods followed that still exist: the watch runs only while there is one (a client holds no idle stream). */
  private get live(): boolean {
    for (const t of this.tracked.values()) if (!t.gone) return true;
    return false;
  }

  /** Stops following a Pod (before this client deletes it: its deletion is no news). */
  untrack(name: string): void {
    const t = this.tracked.get(name);
    this.tracked.delete(name);
    t?.waiters.forEach((w) => w());
    if (!this.live) this.close();
  }

  /** The Pod as last streamed; `gone` once the API said it was deleted. */
  latest(name: string): { readonly pod?: V1Pod; readonly gone: boolean } | undefined {
    const t = this.tracked.get(name);
    return t && (t.pod || t.gone) ? { ...(t.pod ? { pod: t.pod } : {}), gone: t.gone } : undefined;
  }

  /** Resolves at the Pod's next event, or after `ms`. */
  changed(name: string, ms: number): Promise<void> {
    const t = this.tracked.get(name);
    if (!t) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => { clearTimeout(timer); t.waiters.delete(done); resolve(); };
      const timer = setTimeout(done, ms);
      t.waiters.add(done);
    });
  }

  close(): void {
    this.stop.abort();
    this.current?.abort();
    this.connected = false;
  }

  private update(name: string, pod: V1Pod | undefined): void {
    const t = this.tracked.get(name);
    if (!t) return;
    if (pod) t.pod = pod;
    else t.gone = true;
    t.onChange?.(pod);
    for (const w of [...t.waiters]) w();
    if (!pod && !this.live) this.close();
  }

  private async relist(): Promise<void> {
    this.stats.lists++;
    const list = await this.api.call('list Pods (watch)', () => this.api.core.listNamespacedPod({ namespace: this.api.namespace, labelSelector: this.selector }), 2);
    this.rv = list.metadata?.resourceVersion;
    const seen = new Set<string>();
    for (const p of list.items) {
      const name = p.metadata?.name ?? '';
      seen.add(name);
      this.update(name, p);
    }
    // A Pod we had seen that the list does not hold was deleted while we were not watching (one never
    // seen may be followed just before its create: the watch brings it).
    for (const [name, t] of [...this.tracked]) if (!seen.has(name) && t.pod) this.update(name, undefined);
  }

  private async run(stop: AbortSignal): Promise<void> {
    while (!stop.aborted && this.live) {
      try {
        if (this.rv === undefined) await this.relist();
        if (stop.aborted) break;
        const end = await this.watchOnce(stop);
        if (end === 'expired') this.rv = undefined;
        else if (typeof end === 'object') { this.rv = undefined; await sleep(this.backoff(end.code, `watch Pods: HTTP ${end.code ?? '?'}`), stop); }
        // 'ended': the server closed the stream (its timeout, a restart): resume from the version we hold.
      } catch (e) {
        this.connected = false;
        this.rv = undefined;
        await sleep(this.backoff(statusOf(e), e instanceof Error ? e.message : String(e)), stop);
      }
    }
  }

  /** One watch stream, until it ends: `expired` (410: list again), failed (an error, with its HTTP status), `ended` (closed). */
  private watchOnce(stop: AbortSignal): Promise<'ended' | 'expired' | { readonly code?: number }> {
    return new Promise((resolve) => {
      let outcome: 'ended' | 'expired' | { readonly code?: number } = 'ended';
      this.stats.watches++;
      const query = { labelSelector: this.selector, resourceVersion: this.rv, allowWatchBookmarks: true, timeoutSeconds: this.o.timeoutSec ?? 300 };
      const onEvent = (type: string, obj: V1Pod & { code?: number }): void => {
        this.stats.events++;
        if (type === 'ERROR') {
          outcome = obj.code === 410 ? 'expired' : { ...(obj.code !== undefined ? { code: obj.code } : {}) };
          this.current?.abort();
          return;
        }
        const rv = obj.metadata?.resourceVersion;
        if (rv) this.rv = rv;
        if (type === 'BOOKMARK') return;
        this.update(obj.metadata?.name ?? '', type === 'DELETED' ? undefined : obj);
      };
      const done = (err: unknown): void => {
        this.connected = false;
        this.current = undefined;
        const code = (err as { statusCode?: unknown } | null)?.statusCode;
        // An ERROR event decided already (we aborted the stream after it); else the way it ended.
        resolve(outcome !== 'ended' ? outcome : err && !stop.aborted ? (code === 410 ? 'expired' : { ...(typeof code === 'number' ? { code } : {}) }) : 'ended');
      };
      new Watch(this.api.conn.kc).watch(`/api/v1/namespaces/${encodeURIComponent(this.api.namespace)}/pods`, query, onEvent, done).then((ctl) => {
        this.current = ctl;
        if (stop.aborted || ctl.signal.aborted) { ctl.abort(); return; }
        this.connected = true;
      }, (e: unknown) => done(e ?? new Error('watch failed')));
    });
  }
}
