import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { InfraError } from '../runtime';
import type { FileChange } from '../snapshot';
import type { PodExecEnd, PodExecRequest } from './podExec';

/**
 * Snapshots of a trial's Pod without an image commit (a Pod cannot be committed): the files it
 * changed are found over exec by comparing a listing of its filesystem taken when it started
 * (`ContainerSpec.snapshotBaseline`) with one taken now; a commit is a tar of the added and
 * changed paths plus the list of removed ones, kept by the client as a file (under the run), and
 * addressed as `snapshot://<id>`. A Pod "from a snapshot" is a fresh Pod of the base image that
 * gets the removals and the archive before anything else runs in it.
 */
export const SNAPSHOT_SCHEME = 'snapshot://';

export interface Stat {
  /** st_mode: file type and permission bits. */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  /** Seconds, with nanoseconds where the image's stat gives them (GNU), as printed: compared as text. */
  readonly mtime: string;
  /** Status change time: every write, chmod or rename sets it, and no user call can set it back. */
  readonly ctime: string;
}

export type Listing = ReadonlyMap<string, Stat>;

/** Exit status of the listing script when the image lacks a tool it needs. */
const NO_TOOLS = 45;

/**
 * Every path of the root filesystem with its status (GNU and busybox find, xargs and stat; times in
 * nanoseconds where stat gives them, else seconds); the kernel's and the kubelet's filesystems are
 * other devices and are not entered. Exit 123 is a file that went between find and stat.
 */
export const LIST_SCRIPT = [
  `for t in find xargs stat; do command -v "$t" >/dev/null 2>&1 || { echo "the image has no $t" >&2; exit ${NO_TOOLS}; }; done`,
  "f='%f %u %g %s %.9Y %.9Z %n'",
  "case \"$(stat -c '%.9Y' / 2>/dev/null)\" in ''|*[!0-9.]*) f='%f %u %g %s %Y %Z %n';; esac",
  "find / -xdev \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o ! -type s -print0 2>/dev/null | xargs -0 stat -c \"$f\" 2>/dev/null",
  'r=$?; [ "$r" -eq 123 ] && r=0; exit "$r"',
].join('\n');

/**
 * Names on stdin (one a line, relative to /), archived without descending: every path is listed.
 * A busybox tar built without `-T` gets them as arguments (bounded by the system's argument limit).
 */
export const ARCHIVE_SCRIPT = [
  'cd / || exit 1',
  "if tar --help 2>&1 | grep -q -e '-T'; then exec tar -cf - --no-recursion -T -; fi",
  'set --; while IFS= read -r p; do set -- "$@" "$p"; done',
  'exec tar -cf - --no-recursion "$@"',
].join('\n');
/** Absolute paths on stdin, removed. */
export const REMOVE_SCRIPT = 'while IFS= read -r p; do rm -rf -- "$p" || exit 1; done';

/** Files the kubelet or the container runtime manage (mounted into every Pod): never the trial's. */
const MANAGED = /^\/(proc|sys|dev)(\/|$)|^\/(etc\/(hosts|hostname|resolv\.conf|mtab)|\.dockerenv)$|^\/(var\/)?run\/secrets(\/|$)|^\/$/;

const TYPE_MASK = 0o170000;

export function parseListing(text: string): Map<string, Stat> {
  const out = new Map<string, Stat>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) (\d+) (\d+) (\d+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\/.*)$/.exec(line);
    if (!m) continue;
    out.set(m[7] as string, { mode: parseInt(m[1] as string, 16), uid: Number(m[2]), gid: Number(m[3]), size: Number(m[4]), mtime: m[5] as string, ctime: m[6] as string });
  }
  return out;
}

const same = (a: Stat, b: Stat): boolean => a.mode === b.mode && a.uid === b.uid && a.gid === b.gid && a.size === b.size && a.mtime === b.mtime && a.ctime === b.ctime;

/** As `docker diff` reports them: a folder whose entries changed is itself changed. */
export function changesBetween(base: Listing, now: Listing): FileChange[] {
  const out: FileChange[] = [];
  for (const [p, s] of now) {
    if (MANAGED.test(p)) continue;
    const b = base.get(p);
    if (!b) out.push({ path: p, kind: 'added' });
    else if (!same(b, s)) out.push({ path: p, kind: 'changed' });
  }
  for (const p of base.keys()) if (!now.has(p) && !MANAGED.test(p)) out.push({ path: p, kind: 'deleted' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface Overlay {
  /** Added and changed paths, parents first (folders are archived without their entries). */
  readonly archive: readonly string[];
  /** Paths to remove before the archive goes in: deleted ones, and ones whose type changed; only the topmost. */
  readonly removals: readonly string[];
}

export function overlayOf(base: Listing, now: Listing): Overlay {
  const changes = changesBetween(base, now);
  const archive = changes.filter((c) => c.kind !== 'deleted').map((c) => c.path);
  const replaced = changes.filter((c) => c.kind === 'changed' && ((base.get(c.path)?.mode ?? 0) & TYPE_MASK) !== ((now.get(c.path)?.mode ?? 0) & TYPE_MASK)).map((c) => c.path);
  const gone = [...changes.filter((c) => c.kind === 'deleted').map((c) => c.path), ...replaced].sort();
  const removals: string[] = [];
  for (const p of gone) if (!removals.some((r) => p.startsWith(`${r}/`))) removals.push(p);
  return { archive, removals };
}

export interface Snapshot {
  readonly id: string;
  /** The image the Pod was started from (the local tag, as the trial names it). */
  readonly base: string;
  readonly file: string;
  readonly removals: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly bytes: number;
}

/** What the snapshots need of the runtime: exec in a Pod (a lost stream resolved by the Pod's fate) and the archive copy-in. */
export interface PodTools {
  exec(pod: string, req: PodExecRequest): Promise<PodExecEnd>;
  put(pod: string, dir: string, tar: Readable): Promise<void>;
  lost(pod: string, detail: string): Promise<never>;
}

export class PodSnapshots {
  private readonly baselines = new Map<string, Listing | string>();
  /** Each Pod's starting point: its image, and the snapshot when it was started from one. */
  private readonly origins = new Map<string, { readonly image: string; readonly snapshot?: string }>();
  private readonly snaps = new Map<string, Snapshot>();

  constructor(private readonly tools: PodTools, private readonly defaultDir: string, private readonly maxBytes: number) {}

  /** The snapshot a reference names, or undefined for an image reference; an unknown snapshot is an error. */
  resolve(ref: string): Snapshot | undefined {
    if (!ref.startsWith(SNAPSHOT_SCHEME)) return undefined;
    const s = this.snaps.get(ref.slice(SNAPSHOT_SCHEME.length));
    if (!s) throw new InfraError('image-missing', `snapshot ${ref} is not held by this client (removed, or made by another process)`, false);
    return s;
  }

  has(ref: string): boolean {
    return ref.startsWith(SNAPSHOT_SCHEME) && this.snaps.has(ref.slice(SNAPSHOT_SCHEME.length));
  }

  started(pod: string, image: string, snapshot?: Snapshot): void {
    this.origins.set(pod, { image, ...(snapshot ? { snapshot: snapshot.id } : {}) });
  }

  /** The snapshot's files into a fresh Pod of its base image: removals first, then the archive. */
  async apply(pod: string, s: Snapshot): Promise<void> {
    if (s.removals.length) {
      let stderr = '';
      const end = await this.tools.exec(pod, { cmd: ['/bin/sh', '-c', REMOVE_SCRIPT], stdin: Readable.from([Buffer.from(`${s.removals.join('\n')}\n`)]), onStderr: (c) => { stderr += c.toString('utf8'); } });
      if (end.end === 'lost') await this.tools.lost(pod, `removals of snapshot ${s.id}: ${end.detail}`);
      if (end.end !== 'done' || end.exitCode !== 0) throw new InfraError('copy-failed', `Pod ${pod}: the removals of snapshot ${s.id} failed (${stderr.trim().slice(0, 300) || end.end})`, false);
    }
    await this.tools.put(pod, '/', fs.createReadStream(s.file));
  }

  /** Records the Pod's starting state (a failure is kept as the reason its snapshots cannot be made). */
  async baseline(pod: string): Promise<void> {
    const r = await this.list(pod);
    this.baselines.set(pod, r);
  }

  private async list(pod: string): Promise<Listing | string> {
    const chunks: Buffer[] = [];
    let stderr = '';
    const end = await this.tools.exec(pod, { cmd: ['/bin/sh', '-c', LIST_SCRIPT], onStdout: (c) => chunks.push(c), onStderr: (c) => { stderr += c.toString('utf8'); } });
    if (end.end === 'lost') return this.tools.lost(pod, `listing of its files: ${end.detail}`);
    if (end.end !== 'done') return `the listing of Pod ${pod}'s files did not finish`;
    if (end.exitCode !== 0) return `the listing of Pod ${pod}'s files failed (${end.exitCode === NO_TOOLS ? stderr.trim() : `exit ${end.exitCode}: ${stderr.trim().slice(0, 300)}`}); snapshots on Kubernetes need find, xargs and stat in the image`;
    return parseListing(Buffer.concat(chunks).toString('utf8'));
  }

  private async compare(pod: string): Promise<{ base: Listing; now: Listing }> {
    const base = this.baselines.get(pod);
    if (base === undefined) throw new InfraError('other', `Pod ${pod} was started without a baseline of its files (ContainerSpec.snapshotBaseline), so its changes are unknown`, false);
    if (typeof base === 'string') throw new InfraError('other', base, false);
    const now = await this.list(pod);
    if (typeof now === 'string') throw new InfraError('other', now, false);
    return { base, now };
  }

  async diff(pod: string): Promise<FileChange[]> {
    const { base, now } = await this.compare(pod);
    return changesBetween(base, now);
  }

  async commit(pod: string, labels: Readonly<Record<string, string>>, dir = this.defaultDir): Promise<string> {
    const origin = this.origins.get(pod);
    if (!origin) throw new InfraError('other', `Pod ${pod} is not one of this client's`, false);
    // One overlay per snapshot: a Pod started from a snapshot would need the chain kept together.
    if (origin.snapshot) throw new InfraError('other', `Pod ${pod} was started from snapshot ${origin.snapshot}; a snapshot of a snapshot is not made on Kubernetes`, false);
    const { base, now } = await this.compare(pod);
    const overlay = overlayOf(base, now);
    const id = randomBytes(8).toString('hex');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${id}.tar`);
    const bytes = await this.archive(pod, overlay.archive, file);
    const s: Snapshot = { id, base: origin.image, file, removals: overlay.removals, labels: { ...labels }, bytes };
    // Beside the archive, what it is (a kill -9 leaves both in the run's folder, nothing on the cluster).
    fs.writeFileSync(path.join(dir, `${id}.json`), `${JSON.stringify({ id, base: s.base, pod, labels, removals: s.removals, files: overlay.archive.length, bytes }, null, 2)}\n`);
    this.snaps.set(id, s);
    return `${SNAPSHOT_SCHEME}${id}`;
  }

  private async archive(pod: string, paths: readonly string[], file: string): Promise<number> {
    const out = fs.createWriteStream(file);
    const ctl = new AbortController();
    let bytes = 0;
    let stderr = '';
    const end = await this.tools.exec(pod, {
      cmd: ['/bin/sh', '-c', ARCHIVE_SCRIPT], stdin: Readable.from([Buffer.from(paths.map((p) => `.${p}\n`).join(''))]), signal: ctl.signal,
      onStdout: (c) => { bytes += c.length; if (bytes > this.maxBytes) ctl.abort(); else out.write(c); },
      onStderr: (c) => { if (stderr.length < 4096) stderr += c.toString('utf8'); },
    });
    await new Promise<void>((resolve, reject) => { out.on('error', reject); out.end(() => resolve()); });
    const fail = (why: string, retryable = false): never => { fs.rmSync(file, { force: true }); throw new InfraError('other', `snapshot of Pod ${pod}: ${why}`, retryable); };
    if (ctl.signal.aborted) fail(`its changes are larger than ${Math.round(this.maxBytes / 2 ** 20)} MiB (TASKWRIGHT_K8S_SNAPSHOT_MAX_MB)`);
    if (end.end === 'lost') { fs.rmSync(file, { force: true }); await this.tools.lost(pod, `archive of its changes: ${end.detail}`); }
    if (end.end !== 'done') fail('the archive did not finish');
    const code = end.end === 'done' ? end.exitCode : -1;
    // GNU tar's 1: a file changed while it was read (a process the solution left running); the rest is kept.
    if (code !== 0 && !(code === 1 && /file changed as we read it/.test(stderr))) fail(`tar exited ${code}: ${stderr.trim().slice(0, 300)}`);
    return bytes;
  }

  /** Forgets a removed Pod. */
  forget(pod: string): void {
    this.baselines.delete(pod);
    this.origins.delete(pod);
  }

  /** Removes a snapshot's files; an unknown or already removed one is not an error. */
  remove(ref: string): void {
    if (!ref.startsWith(SNAPSHOT_SCHEME)) return;
    const id = ref.slice(SNAPSHOT_SCHEME.length);
    const s = this.snaps.get(id);
    if (!s) return;
    this.snaps.delete(id);
    fs.rmSync(s.file, { force: true });
    fs.rmSync(s.file.replace(/\.tar$/, '.json'), { force: true });
  }

  /** Snapshots held now (for tests and cleanup). */
  held(): string[] {
    return [...this.snaps.keys()].map((id) => `${SNAPSHOT_SCHEME}${id}`);
  }
}
