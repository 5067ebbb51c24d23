import type { Task } from '../../model/task';
import { ImageCache, type ImageRuntime } from '../image';
import { InfraError, type BuildSpec } from '../runtime';
import type { DockerPublisher } from './publish';
import { qualify, type Registry } from './registry';

/** What `taskwright images push` did for one task. */
export interface PushedImage {
  readonly task: string;
  /** The registry-qualified reference the cluster pulls. */
  readonly image?: string;
  /** `pushed` (built or taken from the local engine, then pushed), `present` (the registry had the tag: skipped), `failed`. */
  readonly status: 'pushed' | 'present' | 'failed';
  readonly message?: string;
}

/**
 * The registry seen as an image store: a content-hash tag is "there" when the registry has it
 * (HEAD manifest); "building" it builds on the local engine and pushes. A `docker_image` task's
 * image the registry lacks is pushed from the local engine, where it must be (Taskwright never pulls).
 */
class RegistryImages implements ImageRuntime {
  readonly pushed = new Set<string>();

  constructor(private readonly registry: Registry, private readonly publisher: DockerPublisher, private readonly onLog: (t: string) => void) {}

  async imageExists(ref: string): Promise<boolean> {
    const remote = qualify(this.registry.address, ref);
    if (await this.registry.hasManifest(remote)) return true;
    if (ref.startsWith('taskwright/')) return false;
    await this.publisher.push(ref, remote, this.onLog);
    this.pushed.add(ref);
    return true;
  }

  async buildImage(spec: BuildSpec): Promise<void> {
    await this.publisher.publish(spec, qualify(this.registry.address, spec.tag));
    this.pushed.add(spec.tag);
  }
}

/** Builds each task's image locally (when not built) and pushes its content-hash tag, unless the registry has it. */
export async function pushTaskImages(tasks: readonly Task[], registry: Registry, publisher: DockerPublisher, opts: { onLog?: (t: string) => void; signal?: AbortSignal } = {}): Promise<PushedImage[]> {
  const log = opts.onLog ?? (() => undefined);
  const store = new RegistryImages(registry, publisher, log);
  const cache = new ImageCache(store);
  const out: PushedImage[] = [];
  for (const task of tasks) {
    if (opts.signal?.aborted) break;
    try {
      const img = await cache.ensure(task, { onLog: log, ...(opts.signal ? { signal: opts.signal } : {}) });
      const image = qualify(registry.address, img.ref);
      out.push({ task: task.id, image, status: store.pushed.has(img.ref) ? 'pushed' : 'present' });
    } catch (e) {
      out.push({ task: task.id, status: 'failed', message: e instanceof InfraError || e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
