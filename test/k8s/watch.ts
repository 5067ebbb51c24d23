// `?watch=1`: newline-delimited WatchEvent JSON on a chunked 200, as the API server streams it.
// Without a resourceVersion (or "0") the stream opens with a synthetic ADDED per matching object;
// with one it replays the history after it, or sends an ERROR event with a 410 Expired Status when
// the history no longer reaches back. An object that stops matching a label selector is DELETED
// from the watcher's view; one that starts matching is ADDED.
import type { ServerResponse } from 'node:http';
import type { Resource } from './status';
import { apiVersionOf, status } from './status';
import type { KubeObject, Store, StoreEvent } from './store';

export interface WatchQuery {
  readonly resource: Resource;
  /** undefined: every namespace. */
  readonly namespace: string | undefined;
  readonly matches: (o: KubeObject) => boolean;
  readonly resourceVersion: string | null;
  readonly timeoutSeconds: number | undefined;
  /** `allowWatchBookmarks=true`: BOOKMARK events carrying the current resourceVersion now and then. */
  readonly bookmarks?: boolean;
}

/** The object as a list or watch carries it: with kind and apiVersion. */
export type Present = (r: Resource, o: KubeObject) => KubeObject;

export class Watches {
  private readonly open = new Set<ServerResponse>();

  /** `bookmarkMs`: how often a watch that asked for bookmarks gets one (the API server: about a minute). */
  constructor(private readonly store: Store, private readonly present: Present, private readonly bookmarkMs = 5_000) {}

  get count(): number { return this.open.size; }

  serve(res: ServerResponse, q: WatchQuery): void {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
    // The API answers at once; Node would hold the headers until the first event.
    res.flushHeaders();
    this.open.add(res);
    const key = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    const visible = new Set<string>();
    const write = (type: string, object: object): void => { if (!res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`); };
    const inScope = (e: StoreEvent): boolean => e.resource.plural === q.resource.plural && (q.namespace === undefined || e.object.metadata?.namespace === q.namespace);
    const deliver = (e: StoreEvent): void => {
      if (!inScope(e)) return;
      const k = key(e.object);
      const match = e.type !== 'DELETED' && q.matches(e.object);
      const obj = this.present(q.resource, e.object);
      if (e.type === 'DELETED') { if (visible.delete(k) || q.matches(e.object)) write('DELETED', obj); return; }
      if (match && !visible.has(k)) { visible.add(k); write('ADDED', obj); } else if (match) write('MODIFIED', obj);
      else if (visible.delete(k)) write('DELETED', obj);
    };
    const rv = q.resourceVersion;
    let unsubscribe: () => void = () => undefined;
    // A bookmark is an object of the watched kind with only metadata.resourceVersion: where to resume.
    const bookmark = q.bookmarks ? setInterval(() => write('BOOKMARK', { kind: q.resource.kind, apiVersion: apiVersionOf(q.resource), metadata: { resourceVersion: this.store.resourceVersion } }), this.bookmarkMs) : undefined;
    const end = (): void => { unsubscribe(); clearTimeout(timer); clearInterval(bookmark); this.open.delete(res); if (!res.writableEnded) res.end(); };
    const timer = setTimeout(end, (q.timeoutSeconds ?? 1800) * 1000);
    res.on('close', end);
    if (!rv || rv === '0') {
      for (const o of this.store.list(q.resource, q.namespace)) if (q.matches(o)) { visible.add(key(o)); write('ADDED', this.present(q.resource, o)); }
    } else {
      const n = Number(rv);
      const replay = Number.isFinite(n) ? this.store.since(n) : undefined;
      if (!replay) {
        write('ERROR', status(410, 'Expired', `too old resource version: ${rv} (${this.store.oldestWatchable})`));
        end();
        return;
      }
      // Objects that existed at rv are in view for the selector semantics of the replay.
      for (const o of this.store.list(q.resource, q.namespace)) if (q.matches(o) && Number(o.metadata?.resourceVersion) <= n) visible.add(key(o));
      for (const e of replay) deliver(e);
    }
    unsubscribe = this.store.subscribe(deliver);
  }

  /** Ends every open watch from the server side (as an API server restart or its timeout does). */
  closeAll(): void {
    for (const res of [...this.open]) res.end();
    this.open.clear();
  }
}
