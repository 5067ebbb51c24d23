import { Writable, type Readable } from 'node:stream';
import { Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import { InfraError } from '../runtime';
import { execExitCode, httpStatus, isTransientApiError, message } from './classify';

/**
 * One command in a Pod over the API server's exec WebSocket (`v5.channel.k8s.io`: stdin is closed
 * with a close frame, so `tar -x` sees its end and the exit status still arrives). The exec API has
 * no user, environment or working folder: a small POSIX sh prelude applies them, switching user
 * with runuser, setpriv or su when the caller asks for another user than the Pod's.
 */
export const EXEC_PRELUDE = [
  'd=$1; u=$2; n=$3; shift 3',
  'while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n-1)); done',
  'if [ -n "$d" ]; then cd "$d" || exit 126; fi',
  'if [ -n "$u" ] && [ "$u" != "$(id -u)" ] && [ "$u" != "$(id -un 2>/dev/null)" ]; then',
  '  if command -v runuser >/dev/null 2>&1; then exec runuser -u "$u" -- "$@"; fi',
  '  if command -v setpriv >/dev/null 2>&1; then exec setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"; fi',
  '  exec su -s /bin/sh "$u" -c \'exec "$0" "$@"\' -- "$@"',
  'fi',
  'exec "$@"',
].join('\n');

export function wrapCommand(cmd: readonly string[], opts: { env?: Readonly<Record<string, string>>; user?: string; workdir?: string }): string[] {
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
  return ['/bin/sh', '-c', EXEC_PRELUDE, 'taskwright', opts.workdir ?? '', opts.user ?? '', String(env.length), ...env, ...cmd];
}

export interface PodExecRequest {
  readonly cmd: readonly string[];
  readonly stdin?: Readable;
  readonly onStdout?: (chunk: Buffer) => void;
  readonly onStderr?: (chunk: Buffer) => void;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Called every `heartbeatMs` while the command runs; a rejection ends the exec as lost. */
  readonly heartbeat?: () => Promise<void>;
  readonly heartbeatMs?: number;
  /** Tries of the WebSocket handshake on a transient failure (the command has not started yet). */
  readonly connectTries?: number;
}

export type PodExecEnd =
  | { readonly end: 'done'; readonly exitCode: number }
  | { readonly end: 'timeout' | 'cancelled' }
  | { readonly end: 'lost'; readonly detail: string };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function sink(cb: ((c: Buffer) => void) | undefined, onError: (e: unknown) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done): void {
      try { cb?.(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)); } catch (e) { onError(e); }
      done();
    },
  });
}

interface SocketLike {
  readonly readyState: number;
  close(): void;
  terminate?: () => void;
  on?(event: 'close' | 'error', cb: (...args: unknown[]) => void): void;
  addEventListener?(event: 'close' | 'error', cb: (...args: unknown[]) => void): void;
}

function onSocket(ws: SocketLike, event: 'close' | 'error', cb: (...args: unknown[]) => void): void {
  if (ws.on) ws.on(event, cb);
  else ws.addEventListener?.(event, cb);
}

/**
 * Runs `cmd` in the Pod's container. A handshake refused with 5xx/429 or a connection error is
 * tried again (nothing ran yet); once the socket is open, a socket that closes without the
 * command's status is `lost` — the command may have run, so the caller must not run it again.
 */
export async function podExec(kc: KubeConfig, namespace: string, pod: string, container: string, req: PodExecRequest): Promise<PodExecEnd> {
  let callbackError: unknown;
  let status: V1Status | undefined;
  let settle: ((v: PodExecEnd) => void) | undefined;
  const fail = (e: unknown): void => { callbackError ??= e; settle?.({ end: 'cancelled' }); };
  const stdout = sink(req.onStdout, fail);
  const stderr = sink(req.onStderr, fail);
  let ws: SocketLike | undefined;
  const tries = Math.max(1, req.connectTries ?? 4);
  for (let i = 1; ; i++) {
    if (req.signal?.aborted) return { end: 'cancelled' };
    try {
      ws = await new Exec(kc).exec(namespace, pod, container, [...req.cmd], stdout, stderr, req.stdin ?? null, false, (s) => {
        status = s;
        settle?.({ end: 'done', exitCode: execExitCode(s) });
      }) as unknown as SocketLike;
      break;
    } catch (e) {
      const st = httpStatus(e);
      if (st === 404) throw new InfraError('exec-failed', `exec in Pod ${pod}: the Pod or its container is gone (404)`);
      if (i < tries && isTransientApiError(e)) { await sleep(200 * 2 ** (i - 1)); continue; }
      const why = message(e);
      throw new InfraError(isTransientApiError(e) ? 'api-error' : 'exec-failed', `exec in Pod ${pod} could not start (${st !== undefined ? `HTTP ${st}: ` : ''}${why})`);
    }
  }
  const socket = ws;
  let timer: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const result = await new Promise<PodExecEnd>((resolve) => {
    let done = false;
    settle = (v) => { if (!done) { done = true; resolve(v); } };
    // The status frame arrived before we got here (a very short command).
    if (status) settle({ end: 'done', exitCode: execExitCode(status) });
    onSocket(socket, 'close', () => {
      // The status frame comes before the close; a close without one is a cut stream.
      setImmediate(() => settle?.(status ? { end: 'done', exitCode: execExitCode(status) } : { end: 'lost', detail: 'the exec stream closed before the command\'s exit status arrived' }));
    });
    onSocket(socket, 'error', (e: unknown) => settle?.({ end: 'lost', detail: `the exec stream failed (${message(e)})` }));
    if (req.timeoutMs !== undefined) timer = setTimeout(() => settle?.({ end: 'timeout' }), req.timeoutMs);
    if (req.signal) {
      onAbort = () => settle?.({ end: 'cancelled' });
      if (req.signal.aborted) onAbort();
      req.signal.addEventListener('abort', onAbort, { once: true });
    }
    if (req.heartbeat) {
      beat = setInterval(() => {
        req.heartbeat?.().catch((e: unknown) => settle?.({ end: 'lost', detail: `the Kubernetes API stopped answering during the exec (${e instanceof Error ? e.message : String(e)})` }));
      }, req.heartbeatMs ?? 30_000);
    }
  });
  clearTimeout(timer);
  clearInterval(beat);
  if (onAbort) req.signal?.removeEventListener('abort', onAbort);
  if (socket.readyState <= 1) {
    try { socket.close(); } catch { /* already closing */ }
  }
  if (callbackError !== undefined) throw callbackError;
  return result;
}
