import Docker from 'dockerode';
import { InfraError, type ContainerRuntime } from './runtime';

/**
 * Snapshots of a running container, for checks that start many containers from one solved state
 * (validate's output mutants, environment variation, stale state). Kept apart from the core
 * runtime interface: a backend without them simply skips those checks. A snapshot is addressed by
 * the reference `commit` returns and is started like an image (`ContainerSpec.image`): on Docker an
 * image id, on Kubernetes a `snapshot://` reference to an overlay of files kept by the client
 * (podSnapshot.ts) that a fresh Pod of the base image receives before anything runs in it.
 */
export interface FileChange {
  readonly path: string;
  readonly kind: 'changed' | 'added' | 'deleted';
}

export interface CommitOptions {
  /** Where a backend whose snapshots are files keeps them (the run's folder); an image engine ignores it. */
  readonly dir?: string;
}

export interface SnapshotRuntime {
  /**
   * The container's filesystem changes against the state it started in (`docker diff`). A backend
   * that has to record that state for it does so when the container's spec says
   * `snapshotBaseline`; without it, it may refuse.
   */
  diff(containerId: string): Promise<FileChange[]>;
  /** Commits the container (paused for the copy) as a new image carrying `labels`; returns the image id. */
  commit(containerId: string, labels: Readonly<Record<string, string>>, opts?: CommitOptions): Promise<string>;
  /** Removes an image; one already gone is not an error. */
  removeImage(ref: string): Promise<void>;
  /**
   * The images committed with every one of `labels` (`key=value`): a resume removes the
   * verifier-ready snapshots a killed owner left, which no one else would. Absent: a backend whose
   * snapshots do not outlive the process (Kubernetes keeps them in memory).
   */
  imagesByLabel?(labels: readonly string[]): Promise<string[]>;
  /**
   * `copy`: a container started from a snapshot receives its files by a copy (Kubernetes), so a
   * snapshot saves no work over the calls it replaces — only checks that need the state use it.
   * Absent: the engine starts it from a layer at no cost (Docker).
   */
  readonly snapshotStart?: 'layer' | 'copy';
}

export function hasSnapshots(r: ContainerRuntime): r is ContainerRuntime & SnapshotRuntime {
  const s = r as Partial<SnapshotRuntime>;
  return typeof s.diff === 'function' && typeof s.commit === 'function' && typeof s.removeImage === 'function';
}

export async function dockerImagesByLabel(docker: Docker, labels: readonly string[]): Promise<string[]> {
  try {
    return (await docker.listImages({ filters: JSON.stringify({ label: labels }) })).map((i) => i.Id);
  } catch (e) {
    throw new InfraError('other', `list of images labelled ${labels.join(', ')}: ${msg(e)}`);
  }
}

const KINDS: readonly FileChange['kind'][] = ['changed', 'added', 'deleted'];

function msg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Dockerode implementations, used by `DockerodeRuntime`. */
export async function dockerDiff(docker: Docker, containerId: string): Promise<FileChange[]> {
  try {
    const list = (await docker.getContainer(containerId).changes()) as { Path: string; Kind: number }[] | null;
    return (list ?? []).map((c) => ({ path: c.Path, kind: KINDS[c.Kind] ?? 'changed' }));
  } catch (e) {
    throw new InfraError('other', `diff of container ${containerId.slice(0, 12)}: ${msg(e)}`);
  }
}

export async function dockerCommit(docker: Docker, containerId: string, labels: Readonly<Record<string, string>>): Promise<string> {
  const changes = Object.entries(labels).map(([k, v]) => `LABEL ${JSON.stringify(k)}=${JSON.stringify(v)}`);
  try {
    const r = (await docker.getContainer(containerId).commit({ pause: true, changes })) as { Id?: string };
    if (!r.Id) throw new Error('the engine returned no image id');
    return r.Id;
  } catch (e) {
    throw new InfraError('other', `commit of container ${containerId.slice(0, 12)}: ${msg(e)}`);
  }
}

export async function dockerRemoveImage(docker: Docker, ref: string): Promise<void> {
  try {
    await docker.getImage(ref).remove({ force: true, noprune: false });
  } catch (e) {
    const code = (e as { statusCode?: unknown }).statusCode;
    if (code === 404) return;
    throw new InfraError('other', `remove image ${ref.slice(0, 19)}: ${msg(e)}`);
  }
}
