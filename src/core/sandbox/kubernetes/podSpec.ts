import { createHash } from 'node:crypto';
import type { V1NetworkPolicy, V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import { LABEL, LABEL_TRIAL, type ContainerSpec } from '../runtime';

/**
 * The objects a trial creates on a cluster, built as plain data so they are tested (and checked
 * against the official OpenAPI schemas) without a cluster: one Pod per trial and, when the trial
 * has no network, a deny-all NetworkPolicy selecting only that Pod.
 */

/** The one container of a trial's Pod. */
export const CONTAINER = 'trial';
/** Label carrying the Pod's own name, so the trial's NetworkPolicy selects that Pod alone. */
export const LABEL_POD = 'taskwright.pod';
/** Annotation prefix keeping each owner label's exact value (label values are limited to 63 characters of a small alphabet). */
export const ANNOTATION_PREFIX = 'taskwright.dev/';

/**
 * The keep-alive the Docker runtime uses, with a TERM trap: pid 1 of a Pod has no init, and a
 * shell ignores SIGTERM by default, which would hold every deletion for its grace period.
 */
export const KEEP_ALIVE = ['/bin/sh', '-c', 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done'];

/** Slack added to the trial's own wall clock for `activeDeadlineSeconds` (image pull, scheduling). */
export const DEADLINE_SLACK_SEC = 300;

function shortHash(s: string, n = 8): string {
  return createHash('sha256').update(s).digest('hex').slice(0, n);
}

/** A DNS-1123 label (Pod and NetworkPolicy names): lowercase alphanumerics and '-', at most 63, distinct per input. */
export function podName(name: string): string {
  const clean = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/^-+|-+$/g, '');
  const base = (clean || 'tw').slice(0, 63);
  if (base === clean && base.length <= 63 && /^[a-z0-9]/.test(base)) return base;
  return `${base.slice(0, 54).replace(/-+$/, '')}-${shortHash(name)}`;
}

/** A valid label value: at most 63 of [A-Za-z0-9-_.], starting and ending alphanumeric ('' stays ''). */
export function labelValue(v: string): string {
  const clean = v.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  if (clean === v && v.length <= 63) return v;
  const cut = `${clean.slice(0, 54).replace(/[^A-Za-z0-9]+$/, '')}-${shortHash(v)}`;
  return cut.replace(/^-/, '');
}

/** The label key as the API takes it (the project's keys are valid names already). */
function labelKey(k: string): string {
  return k.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 63);
}

export interface PodOptions {
  readonly namespace: string;
  /** The image reference the cluster pulls (registry-qualified). */
  readonly image: string;
  /** Seconds after which the API server kills the Pod whatever the client does. */
  readonly activeDeadlineSeconds: number;
  /** Ephemeral storage limit in bytes, when the task states one. */
  readonly storageBytes?: number;
  /** `imagePullSecrets` to give the Pod (a private registry). */
  readonly pullSecrets?: readonly string[];
}

/** Kubernetes quantities: whole millicores and bytes (the API accepts both forms as given). */
export function resourcesFor(spec: ContainerSpec, storageBytes?: number): V1ResourceRequirements {
  const cpu = `${Math.max(1, Math.round(spec.limits.nanoCpus / 1e6))}m`;
  const memory = String(Math.max(1, Math.round(spec.limits.memoryBytes)));
  const q: Record<string, string> = { cpu, memory, ...(storageBytes ? { 'ephemeral-storage': String(Math.round(storageBytes)) } : {}) };
  // Requests equal to limits: the scheduler places the trial where its limits fit (Guaranteed QoS,
  // the last to be evicted under node pressure).
  return { requests: { ...q }, limits: { ...q } };
}

/** The trial's Pod: the task's image kept alive, limits from the task, nothing beyond the trial's needs. */
export function buildPod(spec: ContainerSpec, o: PodOptions): V1Pod {
  const name = podName(spec.name ?? `tw-${spec.labels[LABEL_TRIAL] ?? 'trial'}`);
  const labels: Record<string, string> = { [LABEL_POD]: name };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.labels)) {
    labels[labelKey(k)] = labelValue(v);
    annotations[`${ANNOTATION_PREFIX}${labelKey(k)}`] = v;
  }
  labels[LABEL] = labels[LABEL] || '1';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace, labels, annotations },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: Math.max(1, Math.ceil(o.activeDeadlineSeconds)),
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 5,
      ...(o.pullSecrets?.length ? { imagePullSecrets: o.pullSecrets.map((n) => ({ name: n })) } : {}),
      containers: [{
        name: CONTAINER,
        image: o.image,
        // Content-hash tags never change: a node that has the tag has the bytes.
        imagePullPolicy: 'IfNotPresent',
        command: [...KEEP_ALIVE],
        env: Object.entries(spec.env).map(([k, v]) => ({ name: k, value: v })),
        ...(spec.workdir ? { workingDir: spec.workdir } : {}),
        resources: resourcesFor(spec, o.storageBytes),
        // The Docker runtime runs unprivileged with the engine's default capabilities and drops none;
        // the Pod keeps the runtime's defaults too (the same set): the harness cleans the agent's
        // leftovers as root, which needs CAP_DAC_OVERRIDE and CAP_FOWNER. No privilege escalation.
        securityContext: { allowPrivilegeEscalation: false, privileged: false },
      }],
    },
  };
}

/** Denies all ingress and egress of the trial's Pod (and only of it). */
export function buildDenyAllPolicy(pod: V1Pod): V1NetworkPolicy {
  const name = pod.metadata?.name ?? 'tw';
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(pod.metadata?.labels ?? {})) if (k !== LABEL_POD) labels[k] = v;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name, namespace: pod.metadata?.namespace, labels,
      // Deleted with its Pod by the garbage collector when the Pod goes (the client need not live).
      ...(pod.metadata?.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata.uid }] } : {}),
    },
    spec: { podSelector: { matchLabels: { [LABEL_POD]: name } }, policyTypes: ['Ingress', 'Egress'], ingress: [], egress: [] },
  };
}

/** The owner labels as they were given (from the annotations), falling back to the labels. */
export function ownerLabels(meta: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined): Record<string, string> {
  const out: Record<string, string> = { ...(meta?.labels ?? {}) };
  for (const [k, v] of Object.entries(meta?.annotations ?? {})) {
    if (k.startsWith(ANNOTATION_PREFIX)) out[k.slice(ANNOTATION_PREFIX.length)] = v;
  }
  return out;
}

/** The registry-qualified reference of a local image tag (`taskwright/x:hash` → `registry/taskwright/x:hash`). */
export function registryRef(registry: string, ref: string): string {
  const r = registry.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
  return r ? `${r}/${ref}` : ref;
}
