// Status bodies as the Kubernetes API server writes them (k8s.io/apimachinery/pkg/api/errors): every
// failure is a `kind: Status` object with the HTTP code repeated in `code`, a machine `reason` and
// `details` naming the resource ("pods", "jobs.batch" in messages, the group apart in details).
import type { IStatus } from '@kubernetes-models/apimachinery/apis/meta/v1/Status';
import type { IStatusCause } from '@kubernetes-models/apimachinery/apis/meta/v1/StatusCause';

/** One resource the fake serves: how the API names it in paths, messages and Status details. */
export interface Resource {
  readonly kind: string;
  readonly plural: string;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly namespaced: boolean;
}

export const NAMESPACES: Resource = { kind: 'Namespace', plural: 'namespaces', group: '', version: 'v1', namespaced: false };
export const PODS: Resource = { kind: 'Pod', plural: 'pods', group: '', version: 'v1', namespaced: true };
export const JOBS: Resource = { kind: 'Job', plural: 'jobs', group: 'batch', version: 'v1', namespaced: true };
export const NETWORK_POLICIES: Resource = { kind: 'NetworkPolicy', plural: 'networkpolicies', group: 'networking.k8s.io', version: 'v1', namespaced: true };

export const apiVersionOf = (r: Resource): string => (r.group ? `${r.group}/${r.version}` : r.version);
/** "pods", "jobs.batch": the resource as the API's messages name it. */
export const qualified = (r: Resource): string => (r.group ? `${r.plural}.${r.group}` : r.plural);

/** An error the fake answers with: an HTTP code, a Status body and any extra headers. */
export class KubeError extends Error {
  constructor(readonly code: number, readonly body: IStatus, readonly headers: Readonly<Record<string, string>> = {}) {
    super(body.message ?? `HTTP ${code}`);
  }
}

export function status(code: number, reason: string, message: string, details?: IStatus['details']): IStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

const detailsOf = (r: Resource, name: string): NonNullable<IStatus['details']> => ({ name, ...(r.group ? { group: r.group } : {}), kind: r.plural });

export const notFound = (r: Resource, name: string): KubeError =>
  new KubeError(404, status(404, 'NotFound', `${qualified(r)} "${name}" not found`, detailsOf(r, name)));

export const alreadyExists = (r: Resource, name: string): KubeError =>
  new KubeError(409, status(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, detailsOf(r, name)));

export const badRequest = (message: string): KubeError => new KubeError(400, status(400, 'BadRequest', message));

export const methodNotAllowed = (): KubeError => new KubeError(405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));

/** The 404 for a path no resource answers (the API's default handler). */
export const pathNotFound = (): KubeError => new KubeError(404, status(404, 'NotFound', 'the server could not find the requested resource', {}));

export function forbidden(r: Resource, verb: string, namespace: string | undefined, name?: string): KubeError {
  const where = namespace ? ` in the namespace "${namespace}"` : '';
  const what = name ? `${qualified(r)} "${name}"` : qualified(r);
  return new KubeError(403, status(403, 'Forbidden',
    `${what} is forbidden: User "system:serviceaccount:default:taskwright" cannot ${verb} resource "${r.plural}" in API group "${r.group}"${where}`,
    { ...(name ? { name } : {}), ...(r.group ? { group: r.group } : {}), kind: r.plural }));
}

export const unauthorized = (): KubeError => new KubeError(401, status(401, 'Unauthorized', 'Unauthorized'));

export const internalError = (cause: string): KubeError =>
  new KubeError(500, status(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] }));

export const tooManyRequests = (retryAfterSeconds: number): KubeError =>
  new KubeError(429, status(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds }), { 'retry-after': String(retryAfterSeconds) });

/** A field error as the API's validation reports it (k8s.io/apimachinery/pkg/util/validation/field). */
export interface FieldError {
  readonly type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong';
  readonly field: string;
  /** The whole "field: Invalid value: ...: detail" message. */
  readonly message: string;
}

export function invalid(r: Resource, name: string, errors: readonly FieldError[]): KubeError {
  const list = errors.map((e) => e.message);
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const causes: IStatusCause[] = errors.map((e) => ({ reason: e.type, message: e.message.slice(e.field.length + 2), field: e.field }));
  return new KubeError(422, status(422, 'Invalid', `${r.kind}${r.group ? `.${r.group}` : ''} "${name}" is invalid: ${summary}`,
    { name, ...(r.group ? { group: r.group } : {}), kind: r.kind, causes }));
}

/** The exec error channel's closing Status (k8s.io/kubelet remotecommand: v4+ write JSON). */
export function execExitStatus(exitCode: number, command: readonly string[]): IStatus {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {}, status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** A Success Status as DELETE answers for resources that do not return the deleted object. */
export function deleted(r: Resource, name: string, uid: string | undefined): IStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, ...(r.group ? { group: r.group } : {}), kind: r.plural, ...(uid ? { uid } : {}) } };
}
