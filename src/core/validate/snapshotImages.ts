import type { Task } from '../model/task';
import { ImageCache, type EnsureImageOptions, type TaskImage } from '../sandbox/image';
import type { ContainerRuntime } from '../sandbox/runtime';

/**
 * The image cache of a validation: a task variant registered here (a copy of the task object)
 * starts its containers from a snapshot image with extra environment; everything else is built
 * or reused as usual.
 */
export class SnapshotImages extends ImageCache {
  private readonly variants = new Map<Task, { readonly base: Task; image: string; readonly env: Readonly<Record<string, string>> }>();

  constructor(runtime: ContainerRuntime) {
    super(runtime);
  }

  /** A variant of `base` (its own object, so each job can carry its own limits) on `image`. */
  variant(base: Task, image: string, env: Readonly<Record<string, string>> = {}, cpus?: number): Task {
    const t: Task = cpus === undefined ? { ...base } : { ...base, environment: { ...base.environment, cpus } };
    this.variants.set(t, { base, image, env });
    return t;
  }

  /**
   * Points every variant on `from` to `to`: a resumed validation plans its snapshot checks from the
   * solved state it recorded, and when that image is gone, runs them on a snapshot taken again.
   */
  rebase(from: string, to: string): void {
    for (const v of this.variants.values()) if (v.image === from) v.image = to;
  }

  override async ensure(task: Task, opts: EnsureImageOptions = {}): Promise<TaskImage> {
    const v = this.variants.get(task);
    if (!v) return super.ensure(task, opts);
    // The base image's compose environment and working folder, then the variation's variables.
    const base = await super.ensure(v.base, {});
    opts.onLog?.(`image ${v.image.slice(0, 19)} (snapshot of the solved state)\n`);
    return { ...base, ref: v.image, built: false, buildSec: 0, env: { ...base.env, ...v.env } };
  }
}
