// Helpers for tests that drive the fake (or a real cluster) with the real @kubernetes/client-node.
import { PassThrough, Readable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';

export { waitFor } from '../support/waitFor';

export interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The Status from the error channel; undefined when the socket closed without one. */
  readonly status: k8s.V1Status | undefined;
  /** From the Status (0 for Success); undefined without one. */
  readonly exitCode: number | undefined;
}

/** The exit code a v4/v5 exec Status carries (NonZeroExitCode → details.causes[reason=ExitCode]). */
export function exitCodeOf(s: k8s.V1Status | undefined): number | undefined {
  if (!s) return undefined;
  if (s.status === 'Success') return 0;
  const c = s.details?.causes?.find((x) => x.reason === 'ExitCode')?.message;
  return c === undefined ? undefined : Number(c);
}

/** Runs a command through client-node's Exec; resolves when the socket closes. */
export async function execIn(kc: k8s.KubeConfig, namespace: string, pod: string, command: string[], stdin?: Buffer | Readable, container = 'main'): Promise<ExecResult> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  out.on('data', (d: Buffer) => chunks.out.push(d));
  err.on('data', (d: Buffer) => chunks.err.push(d));
  const input = stdin === undefined ? null : Buffer.isBuffer(stdin) ? Readable.from([stdin]) : stdin;
  let status: k8s.V1Status | undefined;
  const ws = await new k8s.Exec(kc).exec(namespace, pod, container, command, out, err, input, false, (s) => { status = s; });
  await new Promise<void>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve();
    else ws.on('close', () => resolve());
  });
  return { stdout: Buffer.concat(chunks.out).toString(), stderr: Buffer.concat(chunks.err).toString(), status, exitCode: exitCodeOf(status) };
}

/** The ApiException a call failed with, its body parsed; fails when the call succeeds. */
export async function apiError(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown>; headers: Record<string, string> }> {
  try { await p; } catch (e) {
    if (e instanceof k8s.ApiException) {
      const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Record<string, unknown>;
      return { code: e.code, body, headers: e.headers as Record<string, string> };
    }
    throw e;
  }
  throw new Error('expected the call to fail');
}
