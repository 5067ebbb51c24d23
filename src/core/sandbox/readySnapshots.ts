import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { LABEL, LABEL_RUN, LABEL_TASK, type ContainerRuntime } from './runtime';
import { hasSnapshots, type SnapshotRuntime } from './snapshot';

/** Label of a verifier-ready snapshot image (removed by the runner at the end of its run). */
export const LABEL_READY = 'taskwright.ready';

/** What the container right before the verifier depends on, for an agent that runs nothing in it. */
export interface ReadyInputs {
  readonly image: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir?: string;
  /** The verifier's files exactly as they would be copied in (an edited test makes another key). */
  readonly archive: () => Readable;
}

/**
 * Verifier-ready snapshots. For an agent that runs nothing in its container (nop, validate's
 * checks without a hook) the container's state when the verifier starts — the image, the harness
 * folders found fresh, the tests copied in — depends only on the image, the container's
 * environment and working folder, and the bytes of the verifier's files. The second such trial
 * commits that state once it is reached; later trials of the same key start their fresh container
 * from the snapshot and go straight to the verifier (no archive check, no copy-in: two to three
 * fewer engine calls, each a process the engine starts). Trials that find a snapshot still being
 * made take the usual path. Only on one engine with snapshots (a pool spreads trials over engines
 * that would not hold the image).
 */
export class ReadySnapshots {
  private readonly made = new Map<string, Promise<string | undefined>>();
  private readonly done = new Map<string, string>();
  private readonly seen = new Map<string, number>();

  private constructor(private readonly runtime: ContainerRuntime & SnapshotRuntime, private readonly runId: string) {}

  static for(runtime: ContainerRuntime, runId: string): ReadySnapshots | undefined {
    // A snapshot the backend starts by copying files in saves nothing over the copy-in it replaces.
    if (!hasSnapshots(runtime) || runtime.endpointOf || runtime.snapshotStart === 'copy') return undefined;
    return new ReadySnapshots(runtime, runId);
  }

  /**
   * The key of a trial's verifier-ready state (reads the verifier's files once); undefined when
   * they cannot be archived — the trial then fails where it always does, in the verifier's phase.
   */
  static async key(inputs: ReadyInputs): Promise<string | undefined> {
    try {
      const h = createHash('sha256');
      h.update(JSON.stringify({ image: inputs.image, env: Object.entries(inputs.env).sort(), workdir: inputs.workdir ?? null }));
      for await (const chunk of inputs.archive() as AsyncIterable<Buffer>) h.update(chunk);
      return h.digest('hex');
    } catch {
      return undefined;
    }
  }

  /** The snapshot image for `key`, when one is ready. */
  ready(key: string): string | undefined {
    return this.done.get(key);
  }

  /**
   * Called by each trial of `key` that reached the state the usual way. The second one commits it
   * (a key met once, such as one environment variation, never pays for a commit), unless a
   * snapshot exists or is being made; resolves once it is ready (or given up: a failed commit only
   * means later trials take the usual path).
   */
  async reached(key: string, containerId: string, taskId: string): Promise<void> {
    const seen = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, seen);
    if (seen < 2 || this.made.has(key)) return;
    const p = this.runtime.commit(containerId, { [LABEL]: '1', [LABEL_RUN]: this.runId, [LABEL_TASK]: taskId, [LABEL_READY]: '1' })
      .then((ref) => { this.done.set(key, ref); return ref; }, () => undefined);
    this.made.set(key, p);
    await p;
  }

  /** Removes every snapshot made (call once no container started from one is left). */
  async dispose(): Promise<void> {
    const refs = (await Promise.all([...this.made.values()])).filter((r): r is string => r !== undefined);
    this.made.clear();
    this.done.clear();
    this.seen.clear();
    for (const ref of refs) await this.runtime.removeImage(ref).catch(() => undefined);
  }
}
