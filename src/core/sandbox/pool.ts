import {
  InfraError, LABEL_TRIAL, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary,
  type ExecOutcome, type ExecRequest, type OomWatch,
} from './runtime';
import type { FileChange, SnapshotRuntime } from './snapshot';

/** What the pool needs of each engine (the dockerode runtime provides it). */
export interface MemberRuntime extends ContainerRuntime, SnapshotRuntime {
  watchOom(containerId: string): Promise<OomWatch>;
  /** Streams an image from this engine into `target` (same id and labels). */
  copyImageTo(target: MemberRuntime, ref: string, signal?: AbortSignal): Promise<void>;
}

/** One engine of a pool and how many trials it runs at once. */
export interface PoolMember {
  readonly runtime: MemberRuntime;
  readonly slots: number;
}

export interface EngineStats {
  readonly endpoint: string;
  readonly slots: number;
  /** Trial containers started on it. */
  readonly started: number;
  /** Why it was drained (it stopped answering); undefined while it serves. */
  readonly drained?: string;
  /** Containers it may still hold that could not be removed (it was not answering). */
  readonly stranded: number;
}

interface Engine {
  readonly rt: MemberRuntime;
  readonly slots: number;
  busy: number;
  started: number;
  drained?: string;
  checking?: Promise<void>;
  /** Image refs known present on this engine (a positive answer never goes stale while it serves). */
  readonly images: Set<string>;
  readonly loading: Map<string, Promise<void>>;
  readonly stranded: Set<string>;
  /** Images to remove from it once it answers again (validate's snapshots, removed while it was drained). */
  readonly strandedImages: Set<string>;
  /** While drained with containers stranded: pings it now and then, to remove them once it answers. */
  reprobe?: NodeJS.Timeout;
}

/** How often a drained engine holding containers is pinged, to remove them as soon as it is back. */
export const REPROBE_MS = 5_000;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Several Docker engines as one runtime. A trial's container is placed on the engine with the most
 * free slots (a trial waits when every slot is taken), and every later call on that container goes
 * to the same engine. The task's image is built once, on one engine, and copied (`save`/`load`, by
 * its content-hash tag or id) to each other engine the first time a trial starts there, so all
 * engines run the same bytes. An engine that fails a call and then does not answer a ping is
 * drained: no new trial goes there, the trials it held end as infra errors (the runner redoes them
 * on the engines left, see `lostToDrain`), and its containers are remembered for `sweepStranded`.
 */
export class EnginePool implements ContainerRuntime, SnapshotRuntime {
  readonly endpoint: string;
  private readonly engines: Engine[];
  private readonly where = new Map<string, Engine>();
  /** Containers started by `start` (each holds a slot of its engine until removed), with their trial ids. */
  private readonly holding = new Map<string, string | undefined>();
  private readonly lost = new Set<string>();
  private waiters: (() => void)[] = [];

  constructor(members: readonly PoolMember[], private readonly onDrain?: (endpoint: string, reason: string) => void, private readonly reprobeMs = REPROBE_MS) {
    if (!members.length) throw new Error('an engine pool needs at least one engine');
    this.engines = members.map((m) => ({
      rt: m.runtime, slots: Math.max(1, m.slots), busy: 0, started: 0,
      images: new Set<string>(), loading: new Map<string, Promise<void>>(), stranded: new Set<string>(), strandedImages: new Set<string>(),
    }));
    this.endpoint = `pool of ${members.length}: ${members.map((m) => m.runtime.endpoint).join(', ')}`;
  }

  /** Slots of the engines still serving: how many trials the pool runs at once. */
  get capacity(): number {
    return this.live().reduce((n, e) => n + e.slots, 0);
  }

  stats(): EngineStats[] {
    return this.engines.map((e) => ({
      endpoint: e.rt.endpoint, slots: e.slots, started: e.started, stranded: e.stranded.size, ...(e.drained ? { drained: e.drained } : {}),
    }));
  }

  endpointOf(containerId: string): string | undefined {
    return this.where.get(containerId)?.rt.endpoint;
  }

  /** The trial's container was on an engine that was drained while it ran: its infra error is the pool's, not the trial's. */
  lostToDrain(trialId: string): boolean {
    return this.lost.has(trialId);
  }

  knowsImage(ref: string): boolean {
    return this.live().some((e) => e.images.has(ref));
  }

  private live(): Engine[] {
    return this.engines.filter((e) => !e.drained);
  }

  private noEngine(): InfraError {
    const why = this.engines.map((e) => `${e.rt.endpoint}: ${e.drained ?? 'serving'}`).join('; ');
    return new InfraError('engine-unreachable', `no engine of the pool answers (${why})`);
  }

  private drain(e: Engine, reason: string): void {
    if (e.drained) return;
    e.drained = reason;
    // Only this pool's own trial containers (a reaper's listing also maps other runs' containers).
    for (const [id, trial] of this.holding) {
      if (this.where.get(id) !== e) continue;
      e.stranded.add(id);
      if (trial) this.lost.add(trial);
    }
    this.onDrain?.(e.rt.endpoint, reason);
    this.wake();
    // A drained engine is not used again in this run (it may flap); but the containers it kept
    // (a killed daemon's containers go on running until it restarts) are removed once it answers.
    this.watchStranded(e);
  }

  private watchStranded(e: Engine): void {
    if (!e.drained || !(e.stranded.size || e.strandedImages.size) || e.reprobe) return;
    e.reprobe = setInterval(() => { void this.sweep(e); }, this.reprobeMs);
    e.reprobe.unref();
  }

  private async sweep(e: Engine): Promise<number> {
    if (!(e.stranded.size || e.strandedImages.size) || !(await e.rt.ping().then(() => true, () => false))) return 0;
    let removed = 0;
    for (const id of [...e.stranded]) {
      if (!(await e.rt.remove(id).then(() => true, () => false))) continue;
      e.stranded.delete(id);
      this.where.delete(id);
      removed++;
    }
    // Containers first: an image a container still uses cannot go.
    for (const ref of [...e.strandedImages]) {
      if (await e.rt.removeImage(ref).then(() => true, () => false)) e.strandedImages.delete(ref);
    }
    if (!e.stranded.size && !e.strandedImages.size) { clearInterval(e.reprobe); e.reprobe = undefined; }
    return removed;
  }

  /** Stops the background pings of drained engines (the stranded containers are left to the next run's reaper). */
  close(): void {
    for (const e of this.engines) { clearInterval(e.reprobe); e.reprobe = undefined; }
  }

  /** After a failed call: drained when the engine does not answer a ping either (one check at a time). */
  private check(e: Engine): Promise<void> {
    if (e.drained) return Promise.resolve();
    e.checking ??= e.rt.ping().then(
      () => undefined,
      (err: unknown) => this.drain(e, message(err)),
    ).finally(() => { e.checking = undefined; });
    return e.checking;
  }

  private async on<T>(e: Engine, fn: () => Promise<T>): Promise<T> {
    if (e.drained) throw new InfraError('engine-unreachable', `Docker Engine at ${e.rt.endpoint} was drained from the pool (${e.drained})`);
    try {
      return await fn();
    } catch (err) {
      // Any failure may be the engine going away; the ping decides (a refused request is not).
      if (err instanceof InfraError && err.kind !== 'build-failed') await this.check(e);
      throw err;
    }
  }

  private route(containerId: string): Engine {
    const e = this.where.get(containerId);
    if (!e) throw new InfraError('other', `container ${containerId.slice(0, 12)} is not on any engine of the pool`);
    return e;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /**
   * A slot on the live engine with the most free slots; on a tie, one that already has the image
   * (no copy to wait for), then the one that started fewer trials.
   */
  private acquire(image: string, signal?: AbortSignal): Promise<Engine> {
    return new Promise<Engine>((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => { this.waiters = this.waiters.filter((f) => f !== attempt); attempt(); };
      const settle = (f: () => void): void => { settled = true; signal?.removeEventListener('abort', onAbort); f(); };
      const attempt = (): void => {
        if (settled) return;
        if (signal?.aborted) { settle(() => reject(new InfraError('other', 'cancelled while waiting for an engine slot', false))); return; }
        const live = this.live();
        if (!live.length) { settle(() => reject(this.noEngine())); return; }
        const has = (e: Engine): number => Number(e.images.has(image));
        const free = live.filter((e) => e.busy < e.slots).sort((a, b) => (b.slots - b.busy) - (a.slots - a.busy) || has(b) - has(a) || a.started - b.started);
        const e = free[0];
        if (e) { e.busy++; settle(() => resolve(e)); return; }
        this.waiters.push(attempt);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      attempt();
    });
  }

  private release(e: Engine): void {
    e.busy = Math.max(0, e.busy - 1);
    this.wake();
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.live().map((e) => e.rt.ping(signal).catch((err: unknown) => {
      if (!signal?.aborted) this.drain(e, message(err));
    })));
    if (!this.live().length) throw this.noEngine();
  }

  async imageExists(ref: string): Promise<boolean> {
    if (this.knowsImage(ref)) return true;
    for (const e of this.live()) {
      const has = await this.on(e, () => e.rt.imageExists(ref)).catch(() => false);
      if (has) { e.images.add(ref); return true; }
    }
    return false;
  }

  async buildImage(spec: BuildSpec): Promise<void> {
    // Builds take no trial slot; the least busy engine builds, the others copy its image.
    const e = this.live().sort((a, b) => a.busy / a.slots - b.busy / b.slots)[0];
    if (!e) throw this.noEngine();
    spec.onLog(`building on ${e.rt.endpoint}\n`);
    await this.on(e, () => e.rt.buildImage(spec));
    e.images.add(spec.tag);
  }

  /** The image on `target`, copied there from an engine that has it (once per engine and image). */
  private ensureImage(target: Engine, ref: string, signal?: AbortSignal): Promise<void> {
    if (target.images.has(ref)) return Promise.resolve();
    let p = target.loading.get(ref);
    if (!p) {
      p = this.copyTo(target, ref, signal).finally(() => target.loading.delete(ref));
      target.loading.set(ref, p);
    }
    return p;
  }

  private async copyTo(target: Engine, ref: string, signal?: AbortSignal): Promise<void> {
    if (await this.on(target, () => target.rt.imageExists(ref))) { target.images.add(ref); return; }
    let lastError: unknown;
    const sources = this.live().filter((e) => e !== target).sort((a, b) => Number(b.images.has(ref)) - Number(a.images.has(ref)));
    for (const src of sources) {
      if (!src.images.has(ref) && !(await this.on(src, () => src.rt.imageExists(ref)).catch(() => false))) continue;
      try {
        await src.rt.copyImageTo(target.rt, ref, signal);
        target.images.add(ref);
        return;
      } catch (err) {
        lastError = err;
        if (signal?.aborted) throw err;
        await Promise.all([this.check(src), this.check(target)]);
        if (target.drained) throw err;
      }
    }
    // A tag is retryable: the next try's image cache finds it nowhere and builds it again on an engine
    // that answers. A bare image id (validate's snapshot of a solved state) cannot be rebuilt.
    const rebuildable = !ref.startsWith('sha256:');
    throw new InfraError('image-missing', `image ${ref.slice(0, 19)} is on no other engine of the pool that answers${rebuildable ? '' : ' (a snapshot, lost with the engine that held it)'}${lastError ? ` (${message(lastError)})` : ''}`, rebuildable);
  }

  async start(spec: ContainerSpec, signal?: AbortSignal): Promise<string> {
    // An engine that dies before the container exists costs the trial nothing: it starts elsewhere.
    for (let left = this.engines.length; ; left--) {
      const e = await this.acquire(spec.image, signal);
      try {
        await this.ensureImage(e, spec.image, signal);
        const id = await this.on(e, () => e.rt.start(spec, signal));
        this.where.set(id, e);
        this.holding.set(id, spec.labels[LABEL_TRIAL]);
        e.started++;
        return id;
      } catch (err) {
        this.release(e);
        if (e.drained && left > 1 && !signal?.aborted) continue;
        throw err;
      }
    }
  }

  async remove(containerId: string): Promise<void> {
    const e = this.where.get(containerId);
    if (!e) {
      // Not started here (a reaper's find on an engine not yet listed): every live engine is asked.
      await Promise.all(this.live().map((x) => x.rt.remove(containerId).catch(() => undefined)));
      return;
    }
    const held = this.holding.has(containerId);
    this.holding.delete(containerId);
    try {
      await this.on(e, () => e.rt.remove(containerId));
      this.where.delete(containerId);
      e.stranded.delete(containerId);
    } catch (err) {
      if (held) e.stranded.add(containerId);
      this.watchStranded(e);
      throw err;
    } finally {
      if (held) this.release(e);
    }
  }

  /**
   * Removes the containers left on engines that stopped answering, on those that answer again (a
   * restarted daemon keeps its stopped containers). Returns how many were removed and how many are
   * still out of reach (a later run's reaper removes those once their owner is gone).
   */
  async sweepStranded(): Promise<{ removed: number; left: number; imagesLeft: number }> {
    let removed = 0;
    for (const e of this.engines) removed += await this.sweep(e);
    return { removed, left: this.engines.reduce((n, e) => n + e.stranded.size, 0), imagesLeft: this.engines.reduce((n, e) => n + e.strandedImages.size, 0) };
  }

  async listByLabel(label: string): Promise<ContainerSummary[]> {
    const lists = await Promise.all(this.live().map(async (e) => {
      const l = await this.on(e, () => e.rt.listByLabel(label));
      for (const c of l) if (!this.where.has(c.id)) this.where.set(c.id, e);
      return l;
    }));
    return lists.flat();
  }

  exec(containerId: string, req: ExecRequest): Promise<ExecOutcome> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.exec(containerId, req));
  }

  putArchive(containerId: string, dir: string, tar: Parameters<ContainerRuntime['putArchive']>[2]): Promise<void> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.putArchive(containerId, dir, tar));
  }

  getArchive(containerId: string, p: string): ReturnType<ContainerRuntime['getArchive']> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.getArchive(containerId, p));
  }

  inspect(containerId: string): Promise<ContainerState | undefined> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.inspect(containerId));
  }

  watchOom(containerId: string): Promise<OomWatch> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.watchOom(containerId));
  }

  diff(containerId: string): Promise<FileChange[]> {
    const e = this.route(containerId);
    return this.on(e, () => e.rt.diff(containerId));
  }

  async commit(containerId: string, labels: Readonly<Record<string, string>>): Promise<string> {
    const e = this.route(containerId);
    const id = await this.on(e, () => e.rt.commit(containerId, labels));
    e.images.add(id);
    return id;
  }

  /**
   * Removes the image from every engine that answers (snapshots were copied wherever they were used);
   * a drained engine that had it removes it once it answers again.
   */
  async removeImage(ref: string): Promise<void> {
    await Promise.all(this.engines.map(async (e) => {
      if (e.drained) {
        if (e.images.has(ref)) { e.strandedImages.add(ref); this.watchStranded(e); }
        return;
      }
      await e.rt.removeImage(ref).catch(() => undefined);
      e.images.delete(ref);
    }));
  }
}
