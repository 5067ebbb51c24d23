import { PassThrough, Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { InfraError } from '../runtime';
import { podExec, type PodExecEnd } from './podExec';

/**
 * The Docker archive API (`PUT/GET /containers/{id}/archive`) over exec: a tar stream into
 * `tar -x` in the Pod, and `tar -c` of a path out of it. The image needs a `tar` (GNU tar or
 * busybox); as root both keep the archive's owners and modes, as the engine does.
 */

/** Exit status of the read script when the path does not exist (the engine's 404). */
const ABSENT = 44;

/** Names the top entry after the path's last component, as the engine's archive API does. */
export const READ_SCRIPT = [
  'p=$1',
  `[ -e "$p" ] || [ -L "$p" ] || exit ${ABSENT}`,
  'd=$(dirname -- "$p"); b=$(basename -- "$p")',
  'cd -- "$d" && exec tar -cf - -- "$b"',
].join('\n');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function tarMissing(stderr: string, code: number): boolean {
  return code === 127 || /tar: not found|tar: command not found|executable file not found/i.test(stderr);
}

export interface ArchiveTarget {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** What to do when the exec stream was lost (the Pod's fate decides the error). */
  readonly lost: (detail: string) => Promise<never>;
}

export async function putPodArchive(t: ArchiveTarget, dir: string, tar: Buffer | Readable): Promise<void> {
  const stdin = Buffer.isBuffer(tar) ? Readable.from([tar]) : tar;
  let stderr = '';
  const end = await podExec(t.kc, t.namespace, t.pod, t.container, {
    cmd: ['tar', '-xf', '-', '-C', dir], stdin, onStderr: (c) => { if (stderr.length < 4096) stderr += c.toString('utf8'); },
  });
  if (end.end === 'lost') return t.lost(`copy into ${dir}: ${end.detail}`);
  if (end.end !== 'done') throw new InfraError('copy-failed', `copy into ${dir} of Pod ${t.pod} did not finish`);
  if (end.exitCode !== 0) {
    const why = tarMissing(stderr, end.exitCode) ? 'the image has no tar (the Kubernetes backend copies files with tar over exec)' : stderr.trim() || `tar exited ${end.exitCode}`;
    // The Pod answered and refused (no space, a bad archive, no tar): trying again copies the same bytes.
    throw new InfraError('copy-failed', `copy into ${dir} of Pod ${t.pod}: ${why}`, false);
  }
}

/** A path of the Pod as a tar stream; undefined when it does not exist. Read it to the end. */
export async function getPodArchive(t: ArchiveTarget, path: string): Promise<Readable | undefined> {
  const out = new PassThrough();
  let stderr = '';
  let started = false;
  let firstData: (() => void) | undefined;
  const gotData = new Promise<'data'>((resolve) => { firstData = () => resolve('data'); });
  const exec = podExec(t.kc, t.namespace, t.pod, t.container, {
    cmd: ['/bin/sh', '-c', READ_SCRIPT, 'taskwright', path],
    onStdout: (c) => { started = true; firstData?.(); out.write(c); },
    onStderr: (c) => { if (stderr.length < 4096) stderr += c.toString('utf8'); },
  });
  const failure = (end: PodExecEnd): Error | undefined => {
    if (end.end === 'done' && end.exitCode === 0) return undefined;
    if (end.end === 'done') {
      const why = tarMissing(stderr, end.exitCode) ? 'the image has no tar (the Kubernetes backend copies files with tar over exec)' : stderr.trim() || `tar exited ${end.exitCode}`;
      return new InfraError('copy-failed', `copy ${path} out of Pod ${t.pod}: ${why}`);
    }
    return new InfraError('exec-lost', `copy ${path} out of Pod ${t.pod}: ${end.end === 'lost' ? end.detail : 'did not finish'}`);
  };
  const first = await Promise.race([exec.then((e) => ({ e }), (err: unknown) => ({ err })), gotData]);
  if (first !== 'data') {
    if ('err' in first) throw first.err;
    const end = first.e;
    if (end.end === 'done' && end.exitCode === ABSENT && !started) return undefined;
    if (end.end === 'lost' && !started) return t.lost(`copy ${path} out: ${end.detail}`);
    const err = failure(end);
    if (err) throw err;
    out.end();
    return out;
  }
  // Streaming: the end of the exec ends (or fails) the stream the caller reads.
  void exec.then(async (end) => {
    const err = failure(end);
    await sleep(0);
    if (err) out.destroy(err);
    else out.end();
  }, (err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
