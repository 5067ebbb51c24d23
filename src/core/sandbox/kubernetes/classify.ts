import type { V1Pod, V1Status } from '@kubernetes/client-node';
import { InfraError } from '../runtime';

/**
 * What the API server and the Pod's status say about a trial's infrastructure, as pure functions:
 * which failures are the cluster's (infra, retried in a fresh Pod, never counted against the
 * policy) and which are the trial's own.
 */

/** An error's text; WebSocket handshake failures arrive as ErrorEvent objects (`message`, `error`), not Errors. */
export function message(e: unknown): string {
  if (e instanceof Error) return e.message;
  const o = e as { message?: unknown; error?: unknown } | null;
  if (typeof o?.message === 'string' && o.message) return o.message;
  if (o?.error instanceof Error) return o.error.message;
  return String(e);
}

/** Connection-level failures: the API server is not reachable, nothing was refused. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(e: unknown): string | undefined {
  for (let x: unknown = e, i = 0; x && i < 4; i++) {
    const c = (x as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    x = (x as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The HTTP status of a failed call: an ApiException's code, or the one in a WebSocket handshake error. */
export function httpStatus(e: unknown): number | undefined {
  const c = (e as { code?: unknown } | null)?.code;
  if (typeof c === 'number') return c;
  const m = /Unexpected server response: (\d{3})/.exec(message(e));
  return m ? Number(m[1]) : undefined;
}

/** The API's Status object from an error body (a JSON string or an object), when there is one. */
export function statusBody(e: unknown): V1Status | undefined {
  const b = (e as { body?: unknown } | null)?.body;
  let v: unknown = b;
  if (typeof b === 'string') {
    try { v = JSON.parse(b); } catch { return undefined; }
  }
  return v && typeof v === 'object' && (v as { kind?: unknown }).kind === 'Status' ? (v as V1Status) : undefined;
}

/** Retried by the client itself (and then by the runner): the API server is busy or failing, not refusing. */
export function isTransientApiError(e: unknown): boolean {
  const s = httpStatus(e);
  if (s !== undefined) return s === 429 || s >= 500;
  const code = errorCode(e) ?? errorCode((e as { error?: unknown } | null)?.error);
  return code !== undefined && CONNECTION_CODES.has(code);
}

/** Seconds the server asked to wait (Retry-After on 429/503), when it said. */
export function retryAfterSec(e: unknown): number | undefined {
  const h = (e as { headers?: Record<string, string> } | null)?.headers;
  const v = h?.['retry-after'] ?? h?.['Retry-After'];
  const n = v !== undefined ? Number(v) : NaN;
  if (Number.isFinite(n) && n >= 0) return n;
  const d = statusBody(e)?.details?.retryAfterSeconds;
  return typeof d === 'number' ? d : undefined;
}

/** An API call's failure, with the HTTP status the server answered (absent for connection errors). */
export class KubeApiError extends InfraError {
  constructor(kind: InfraError['kind'], message: string, retryable: boolean, readonly status?: number) {
    super(kind, message, retryable);
  }
}

/** An API call's failure as the sandbox's InfraError, naming the call and the server's reason. */
export function apiError(e: unknown, what: string, endpoint: string): InfraError {
  if (e instanceof InfraError) return e;
  const status = httpStatus(e);
  const err = apiErrorOf(e, status, what, endpoint);
  return new KubeApiError(err.kind, err.message, err.retryable, status);
}

function apiErrorOf(e: unknown, status: number | undefined, what: string, endpoint: string): InfraError {
  const body = statusBody(e);
  const why = body?.message ?? (status !== undefined ? `HTTP ${status}` : message(e));
  if (status === undefined) {
    const code = errorCode(e);
    if (code !== undefined && CONNECTION_CODES.has(code)) return new InfraError('engine-unreachable', `the Kubernetes API at ${endpoint} is unreachable (${what}: ${code})`);
    return new InfraError('api-error', `${what}: ${why}`);
  }
  if (status === 429 || status >= 500) return new InfraError('api-error', `${what}: the Kubernetes API answered ${status}${body?.reason ? ` ${body.reason}` : ''} (${why})`);
  // A quota that is full is back-pressure, not a refusal: a later try finds room.
  if (status === 403 && /exceeded quota/i.test(why)) return new InfraError('unschedulable', `${what}: ${why}`);
  if (status === 401 || status === 403) return new InfraError('api-error', `${what}: the Kubernetes API refused the credentials (${status}: ${why}); see docs/kubernetes.md for the Role the backend needs`, false);
  if (status === 422 || status === 400) return new InfraError('container-start', `${what}: the Kubernetes API rejected the object (${status}: ${why})`, false);
  return new InfraError('api-error', `${what}: ${status} ${why}`);
}

/** Waiting reasons of a container whose image cannot be pulled. */
const PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable']);
const START_REASONS = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError', 'PreCreateHookError', 'PostStartHookError']);

export interface PodVerdict {
  /** `ready`: the container runs; `wait`: not yet; `infra`: the Pod will not serve the trial. */
  readonly state: 'ready' | 'wait' | 'infra';
  readonly error?: InfraError;
  /** Still Pending for want of a node (the budget holds back new Pods while any is). */
  readonly unschedulable?: boolean;
}

/**
 * Whether a freshly created Pod is ready for the trial, still coming, or lost to the cluster.
 * `pendingMs` is how long it has been waiting; past `pendingLimitMs` a Pod the scheduler cannot
 * place is an infra error (it would otherwise hold the trial until its deadline).
 */
export function podStartVerdict(pod: V1Pod, pendingMs: number, pendingLimitMs: number, image: string): PodVerdict {
  const name = pod.metadata?.name ?? '?';
  const status = pod.status;
  const phase = status?.phase;
  const failed = podLost(pod);
  if (failed) return { state: 'infra', error: failed };
  const cs = status?.containerStatuses?.[0];
  const waiting = cs?.state?.waiting;
  if (waiting?.reason && PULL_REASONS.has(waiting.reason)) {
    // InvalidImageName cannot get better; a pull error is retried in a fresh Pod (a registry hiccup).
    return { state: 'infra', error: new InfraError('image-pull', `Pod ${name}: image ${image} could not be pulled (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}); push it with \`taskwright images push --registry …\``, waiting.reason !== 'InvalidImageName') };
  }
  if (waiting?.reason && START_REASONS.has(waiting.reason)) {
    return { state: 'infra', error: new InfraError('container-start', `Pod ${name}: the container did not start (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''})`) };
  }
  if (phase === 'Running' && cs?.state?.running) return { state: 'ready' };
  if (phase === 'Succeeded' || phase === 'Failed' || cs?.state?.terminated) {
    const t = cs?.state?.terminated;
    return { state: 'infra', error: new InfraError('container-start', `Pod ${name} ended before the trial began (${phase ?? 'terminated'}${t?.reason ? `, ${t.reason}` : ''}${t?.exitCode !== undefined ? `, exit ${t.exitCode}` : ''})`) };
  }
  const sched = status?.conditions?.find((c) => c.type === 'PodScheduled');
  const unschedulable = sched?.status === 'False' && sched.reason === 'Unschedulable';
  if (unschedulable && pendingMs >= pendingLimitMs) {
    return { state: 'infra', unschedulable, error: new InfraError('unschedulable', `Pod ${name} stayed Pending for ${Math.round(pendingMs / 1000)} s: no node can take it (${sched?.message ?? 'Unschedulable'})`) };
  }
  if (pendingMs >= pendingLimitMs) {
    return { state: 'infra', error: new InfraError('container-start', `Pod ${name} was not running after ${Math.round(pendingMs / 1000)} s (phase ${phase ?? 'unknown'}${waiting?.reason ? `, ${waiting.reason}` : ''})`) };
  }
  return { state: 'wait', ...(unschedulable ? { unschedulable } : {}) };
}

/**
 * A Pod taken away by the cluster rather than ended by its own processes: evicted (node pressure,
 * a drained node), killed at its deadline, or being deleted by someone else. Undefined when the
 * Pod is merely running, pending, or its container stopped by itself.
 */
export function podLost(pod: V1Pod): InfraError | undefined {
  const name = pod.metadata?.name ?? '?';
  const reason = pod.status?.reason;
  if (reason === 'Evicted' || reason === 'Preempting' || reason === 'Terminated' || reason === 'NodeLost' || reason === 'Shutdown' || reason === 'NodeShutdown') {
    return new InfraError('evicted', `Pod ${name} was evicted by the cluster (${reason}${pod.status?.message ? `: ${pod.status.message}` : ''})`);
  }
  if (reason === 'DeadlineExceeded') {
    return new InfraError('harness-timeout', `Pod ${name} reached its activeDeadlineSeconds (${pod.spec?.activeDeadlineSeconds ?? '?'} s) and was stopped by the cluster`, false);
  }
  const disruption = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget' && c.status === 'True');
  if (disruption) return new InfraError('evicted', `Pod ${name} was disrupted by the cluster (${disruption.reason ?? 'DisruptionTarget'}${disruption.message ? `: ${disruption.message}` : ''})`);
  if (pod.metadata?.deletionTimestamp) return new InfraError('evicted', `Pod ${name} is being deleted by someone else (deletion requested at ${String(pod.metadata.deletionTimestamp)})`);
  return undefined;
}

/** The exit code in an exec's closing Status (`v5.channel.k8s.io` status channel). */
export function execExitCode(status: V1Status): number {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const n = cause?.message !== undefined ? Number(cause.message) : NaN;
  if (Number.isInteger(n)) return n;
  // The runtime could not start the command at all (as Docker reports it: 127 not found, 126 not runnable).
  return /not found|no such file/i.test(status.message ?? '') ? 127 : 126;
}
