// What the API server checks before it stores an object: the official OpenAPI schemas (from
// `kubernetes-models`, generated from the Kubernetes OpenAPI spec) plus the handful of semantic
// rules a trial's objects meet (names, labels, containers, quantities, deadlines). A type error
// fails decoding as on a real server (400 BadRequest); any other error is 422 Invalid.
import { badRequest, type FieldError, invalid, KubeError, type Resource } from './status';

interface AjvError { readonly instancePath: string; readonly keyword: string; readonly params: Readonly<Record<string, unknown>>; readonly message?: string }
type SchemaCheck = (obj: unknown) => readonly AjvError[];

let loaded: Promise<Record<string, SchemaCheck>> | undefined;

/** kubernetes-models is ESM-only: loaded once, by dynamic import (the test tree is CommonJS). */
async function schemaChecks(): Promise<Record<string, SchemaCheck>> {
  loaded ??= (async () => {
    const [core, batch, net] = await Promise.all([import('kubernetes-models/v1'), import('kubernetes-models/batch/v1'), import('kubernetes-models/networking.k8s.io/v1')]);
    // The models' base class (validate()) has no types under this repo's node10 resolution.
    const wrap = (make: (o: never) => unknown): SchemaCheck => (obj) => {
      try { (make(obj as never) as { validate(): void }).validate(); return []; } catch (e) {
        const errors = (e as { errors?: AjvError[] }).errors;
        if (!errors) throw e;
        return errors;
      }
    };
    return {
      Pod: wrap((o) => new core.Pod(o)), Namespace: wrap((o) => new core.Namespace(o)),
      Job: wrap((o) => new batch.Job(o)), NetworkPolicy: wrap((o) => new net.NetworkPolicy(o)),
    };
  })();
  return loaded;
}

/** "/spec/containers/0/image" → "spec.containers[0].image", as the API's field paths read. */
export function fieldPath(instancePath: string): string {
  return instancePath.split('/').filter((p) => p !== '').reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

const join = (a: string, b: string): string => (a ? `${a}.${b}` : b);
const show = (v: unknown): string => JSON.stringify(v) ?? 'null';

function valueAt(obj: unknown, instancePath: string): unknown {
  let cur: unknown = obj;
  for (const p of instancePath.split('/').filter((x) => x !== '')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  return cur;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUANTITY = /^([+-]?[0-9.]+)([eE][-+]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A resource.Quantity ("500m", "2Gi", "1e3", 2) as a number, or undefined when it does not parse. */
export function quantity(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return undefined;
  const m = QUANTITY.exec(q);
  if (!m || Number.isNaN(Number(m[1]))) return undefined;
  const suffix = m[2] ?? '';
  return /^[eE]/.test(suffix) ? Number(`${m[1]}${suffix}`) : Number(m[1]) * (SUFFIX[suffix] ?? NaN);
}

const required = (field: string): FieldError => ({ type: 'FieldValueRequired', field, message: `${field}: Required value` });
const bad = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${show(value)}: ${detail}` });
const unsupported = (field: string, value: unknown, allowed: readonly string[]): FieldError =>
  ({ type: 'FieldValueNotSupported', field, message: `${field}: Unsupported value: ${show(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}` });

function labelErrors(labels: unknown, field: string): FieldError[] {
  if (!labels || typeof labels !== 'object') return [];
  const out: FieldError[] = [];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    const slash = k.lastIndexOf('/');
    const prefix = slash >= 0 ? k.slice(0, slash) : '';
    const name = slash >= 0 ? k.slice(slash + 1) : k;
    if ((slash >= 0 && (!DNS1123_SUBDOMAIN.test(prefix) || prefix.length > 253)) || !LABEL_NAME.test(name) || name.length > 63) {
      out.push(bad(field, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'), at most 63 characters"));
    }
    if (typeof v === 'string' && (v.length > 63 || !LABEL_VALUE.test(v))) {
      out.push(bad(`${field}`, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), at most 63 characters"));
    }
  }
  return out;
}

/** metadata checks common to every kind; `maxName` 63 for objects whose name becomes a label. */
export function metadataErrors(meta: Record<string, unknown> | undefined, maxName = 253): FieldError[] {
  const out: FieldError[] = [];
  const name = meta?.name;
  if (name === undefined || name === '') {
    if (!meta?.generateName) out.push({ type: 'FieldValueRequired', field: 'metadata.name', message: 'metadata.name: Required value: name or generateName is required' });
  } else if (typeof name === 'string') {
    if (!DNS1123_SUBDOMAIN.test(name)) out.push(bad('metadata.name', name, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
    if (name.length > maxName) out.push(bad('metadata.name', name, `must be no more than ${maxName} characters`));
  }
  out.push(...labelErrors(meta?.labels, 'metadata.labels'));
  return out;
}

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function containerErrors(c: Obj, field: string, volumes: ReadonlySet<string>): FieldError[] {
  const out: FieldError[] = [];
  if (typeof c.name === 'string' && (!DNS1123_LABEL.test(c.name) || c.name.length > 63)) out.push(bad(join(field, 'name'), c.name, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  if (!c.image) out.push(required(join(field, 'image')));
  arr(c.env).forEach((e, i) => {
    if (typeof e.name === 'string' && (e.name === '' || e.name.includes('='))) out.push(bad(`${field}.env[${i}].name`, e.name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
  });
  arr(c.volumeMounts).forEach((m, i) => {
    if (typeof m.name === 'string' && !volumes.has(m.name)) out.push({ type: 'FieldValueInvalid', field: `${field}.volumeMounts[${i}].name`, message: `${field}.volumeMounts[${i}].name: Not found: ${show(m.name)}` });
  });
  const res = (c.resources ?? {}) as { limits?: Obj; requests?: Obj };
  for (const kind of ['limits', 'requests'] as const) {
    for (const [k, v] of Object.entries(res[kind] ?? {})) {
      const n = quantity(v);
      if (n === undefined) out.push(bad(`${field}.resources.${kind}[${k}]`, v, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
      else if (n < 0) out.push(bad(`${field}.resources.${kind}[${k}]`, v, 'must be greater than or equal to 0'));
    }
  }
  for (const [k, v] of Object.entries(res.requests ?? {})) {
    const lim = res.limits?.[k];
    const [r, l] = [quantity(v), quantity(lim)];
    if (lim !== undefined && r !== undefined && l !== undefined && r > l) out.push(bad(`${field}.resources.requests`, String(v), `must be less than or equal to ${k} limit of ${String(lim)}`));
  }
  return out;
}

/** PodSpec checks; `jobTemplate` for a Job's pod template (restartPolicy OnFailure or Never). */
export function podSpecErrors(spec: Obj | undefined, field: string, jobTemplate = false): FieldError[] {
  const out: FieldError[] = [];
  const containers = arr(spec?.containers);
  if (containers.length === 0) out.push(required(join(field, 'containers')));
  const volumes = new Set(arr(spec?.volumes).map((v) => String(v.name)));
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    const f = `${join(field, 'containers')}[${i}]`;
    if (typeof c.name === 'string' && seen.has(c.name)) out.push({ type: 'FieldValueDuplicate', field: `${f}.name`, message: `${f}.name: Duplicate value: ${show(c.name)}` });
    if (typeof c.name === 'string') seen.add(c.name);
    out.push(...containerErrors(c, f, volumes));
  });
  const rp = spec?.restartPolicy;
  if (jobTemplate) {
    if (rp === undefined) out.push({ type: 'FieldValueRequired', field: join(field, 'restartPolicy'), message: `${join(field, 'restartPolicy')}: Required value: valid values: "OnFailure", "Never"` });
    else if (rp !== 'OnFailure' && rp !== 'Never') out.push(unsupported(join(field, 'restartPolicy'), rp, ['OnFailure', 'Never']));
  } else if (rp !== undefined && !['Always', 'OnFailure', 'Never'].includes(String(rp))) out.push(unsupported(join(field, 'restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  const ads = spec?.activeDeadlineSeconds;
  if (typeof ads === 'number' && (ads < 1 || ads > 2147483647)) out.push(bad(join(field, 'activeDeadlineSeconds'), ads, 'must be between 1 and 2147483647, inclusive'));
  const tgp = spec?.terminationGracePeriodSeconds;
  if (typeof tgp === 'number' && tgp < 0) out.push(bad(join(field, 'terminationGracePeriodSeconds'), tgp, 'must be greater than or equal to 0'));
  return out;
}

function semanticErrors(kind: string, obj: Obj): FieldError[] {
  const meta = obj.metadata as Obj | undefined;
  const spec = obj.spec as Obj | undefined;
  switch (kind) {
    case 'Pod': return [...metadataErrors(meta), ...podSpecErrors(spec, 'spec')];
    case 'Job': {
      const template = (spec?.template ?? {}) as Obj;
      const out = [...metadataErrors(meta, 63), ...podSpecErrors(template.spec as Obj | undefined, 'spec.template.spec', true)];
      out.push(...labelErrors((template.metadata as Obj | undefined)?.labels, 'spec.template.metadata.labels'));
      for (const k of ['backoffLimit', 'completions', 'parallelism', 'ttlSecondsAfterFinished'] as const) {
        const v = spec?.[k];
        if (typeof v === 'number' && v < 0) out.push(bad(`spec.${k}`, v, 'must be greater than or equal to 0'));
      }
      const ads = spec?.activeDeadlineSeconds;
      if (typeof ads === 'number' && ads <= 0) out.push(bad('spec.activeDeadlineSeconds', ads, 'must be greater than or equal to 1'));
      return out;
    }
    case 'NetworkPolicy': {
      const out = metadataErrors(meta);
      if (!spec || spec.podSelector === undefined) out.push(required('spec.podSelector'));
      for (const t of arr(spec?.policyTypes)) if (!['Ingress', 'Egress'].includes(String(t))) out.push(unsupported('spec.policyTypes', t, ['Ingress', 'Egress']));
      return out;
    }
    case 'Namespace': return metadataErrors(meta, 63);
    default: return [];
  }
}

/** One object the fake refused or flagged, kept so tests can assert a backend sent none. */
export interface Violation {
  readonly kind: string;
  readonly name: string;
  readonly request: string;
  readonly code: number;
  readonly errors: readonly string[];
}

/**
 * Checks an object a client sent; throws the KubeError a real server answers (400 for values of the
 * wrong JSON type, 422 Invalid for the rest) and records the violation with `record`.
 */
export async function admit(r: Resource, obj: unknown, request: string, record: (v: Violation) => void): Promise<void> {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: the request body is not a JSON object`);
  const o = obj as Obj;
  const name = String((o.metadata as Obj | undefined)?.name ?? (o.metadata as Obj | undefined)?.generateName ?? '');
  const fail = (e: KubeError, errors: readonly string[]): never => { record({ kind: r.kind, name, request, code: e.code, errors }); throw e; };
  const expected = r.group ? `${r.group}/${r.version}` : r.version;
  if (o.apiVersion !== undefined && o.apiVersion !== expected) fail(badRequest(`the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${expected})`), [`apiVersion ${String(o.apiVersion)}`]);
  if (o.kind !== undefined && o.kind !== r.kind) fail(badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: kind ${String(o.kind)} does not match`), [`kind ${String(o.kind)}`]);
  const check = (await schemaChecks())[r.kind];
  const schema = check ? check({ ...o, apiVersion: expected, kind: r.kind }) : [];
  const typeErr = schema.find((e) => e.keyword === 'type');
  if (typeErr) {
    const f = fieldPath(typeErr.instancePath);
    const got = valueAt(o, typeErr.instancePath);
    fail(badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: json: cannot unmarshal ${Array.isArray(got) ? 'array' : typeof got} into Go struct field .${f} of type ${String(typeErr.params.type)}`),
      schema.map((e) => `${fieldPath(e.instancePath) || '(root)'}: ${e.message ?? e.keyword}`));
  }
  const errors: FieldError[] = schema.map((e) => {
    const f = fieldPath(e.instancePath);
    if (e.keyword === 'required') return required(join(f, String(e.params.missingProperty)));
    if (e.keyword === 'enum') return unsupported(f, valueAt(o, e.instancePath), (e.params.allowedValues as string[] | undefined) ?? []);
    return bad(f, valueAt(o, e.instancePath), e.message ?? e.keyword);
  });
  errors.push(...semanticErrors(r.kind, o));
  if (errors.length) fail(invalid(r, name, errors), errors.map((e) => e.message));
}

/** Checks an object the fake itself serves (tests call this on what they read back). */
export async function schemaErrorsOf(kind: string, obj: unknown): Promise<string[]> {
  const check = (await schemaChecks())[kind];
  return check ? check(obj).map((e) => `${fieldPath(e.instancePath) || '(root)'}: ${e.message ?? e.keyword}`) : [];
}
