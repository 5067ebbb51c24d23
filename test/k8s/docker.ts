// The fake's kubelet side: a pod's containers as real Docker containers. What Kubernetes would
// enforce through the container runtime is passed on to Docker (command/args, env, workingDir,
// CPU and memory limits, runAsUser, allowPrivilegeEscalation, capabilities, read-only root,
// emptyDir volumes, the service-account token mount); scheduling and the registry are faked.
import os from 'node:os';
import type Docker from 'dockerode';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPod } from 'kubernetes-models/v1/Pod';
import { packTar } from '../../src/core/sandbox/tar';
import { quantity } from './validate';

export const LABEL = 'taskwright';
export const LABEL_SERVER = 'taskwright.fake-kube';
export const LABEL_POD_PREFIX = 'taskwright.fake-kube.label.';
export const TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Labels every Docker object the fake creates carries: `taskwright`, the server, the pod's identity. */
export function dockerLabels(serverId: string, pod: IPod, container?: string): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL]: '1', [LABEL_SERVER]: serverId,
    'io.kubernetes.pod.name': pod.metadata?.name ?? '', 'io.kubernetes.pod.namespace': pod.metadata?.namespace ?? '',
    'io.kubernetes.pod.uid': pod.metadata?.uid ?? '',
  };
  if (container) labels['io.kubernetes.container.name'] = container;
  for (const [k, v] of Object.entries(pod.metadata?.labels ?? {})) labels[`${LABEL_POD_PREFIX}${k}`] = v;
  return labels;
}

/** The local image a pod's image reference names, or undefined when it is not on the engine ("pull" fails). */
export async function localImage(docker: Docker, ref: string): Promise<{ ref: string; id: string } | undefined> {
  try {
    const info = await docker.getImage(ref).inspect();
    return { ref, id: info.Id };
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return undefined;
    throw e;
  }
}

const limitOf = (c: IContainer, k: string): number | undefined => {
  const v = (c.resources?.limits as Record<string, unknown> | undefined)?.[k];
  return v === undefined ? undefined : quantity(v);
};

export interface CreateContext {
  readonly serverId: string;
  readonly pod: IPod;
  readonly image: string;
  /** The Docker volume (or tmpfs) backing each of the pod's emptyDir volumes. */
  readonly volumes: ReadonlyMap<string, { readonly docker?: string; readonly tmpfs?: boolean }>;
  /** The first container of the pod: the others join its network namespace, as a pod's containers share one. */
  readonly networkOf?: string;
  /** No network at all (a NetworkPolicy denies all egress and the fake enforces policies). */
  readonly isolated: boolean;
}

export function createOptions(c: IContainer, ctx: CreateContext): Docker.ContainerCreateOptions {
  const { pod } = ctx;
  const meta = pod.metadata ?? {};
  const sc = { ...pod.spec?.securityContext, ...c.securityContext } as Record<string, unknown>;
  const cpu = limitOf(c, 'cpu');
  const memory = limitOf(c, 'memory');
  const binds: string[] = [];
  const tmpfs: Record<string, string> = {};
  for (const m of c.volumeMounts ?? []) {
    const v = ctx.volumes.get(m.name);
    if (v?.docker) binds.push(`${v.docker}:${m.mountPath}${m.readOnly ? ':ro' : ''}`);
    else if (v?.tmpfs) tmpfs[m.mountPath] = '';
  }
  const user = sc.runAsUser !== undefined ? `${String(sc.runAsUser)}${sc.runAsGroup !== undefined ? `:${String(sc.runAsGroup)}` : ''}` : undefined;
  const caps = (sc.capabilities ?? {}) as { add?: string[]; drop?: string[] };
  const env = (c.env ?? []).map((e) => `${e.name}=${e.value ?? fieldRef(pod, e.valueFrom?.fieldRef?.fieldPath)}`);
  return {
    name: `k8s_${c.name}_${meta.name ?? ''}_${meta.namespace ?? ''}_${(meta.uid ?? '').slice(0, 8)}`,
    Image: ctx.image,
    ...(c.command ? { Entrypoint: c.command } : {}),
    ...(c.args ? { Cmd: c.args } : c.command ? { Cmd: [] } : {}),
    Env: env,
    ...(c.workingDir ? { WorkingDir: c.workingDir } : {}),
    ...(user ? { User: user } : {}),
    ...(ctx.networkOf ? {} : { Hostname: meta.name ?? '' }),
    Tty: c.tty === true, OpenStdin: c.stdin === true, StdinOnce: c.stdinOnce === true,
    Labels: dockerLabels(ctx.serverId, pod, c.name),
    HostConfig: {
      ...(cpu !== undefined ? { NanoCpus: Math.round(Math.min(cpu, os.cpus().length) * 1e9) } : {}),
      ...(memory !== undefined ? { Memory: Math.max(Math.round(memory), 6 * 2 ** 20) } : {}),
      ...(sc.allowPrivilegeEscalation === false ? { SecurityOpt: ['no-new-privileges'] } : {}),
      ...(caps.add?.length ? { CapAdd: caps.add } : {}),
      ...(caps.drop?.length ? { CapDrop: caps.drop } : {}),
      ...(sc.readOnlyRootFilesystem === true ? { ReadonlyRootfs: true } : {}),
      ...(sc.privileged === true ? { Privileged: true } : {}),
      ...(binds.length ? { Binds: binds } : {}),
      ...(Object.keys(tmpfs).length ? { Tmpfs: tmpfs } : {}),
      NetworkMode: ctx.networkOf ? `container:${ctx.networkOf}` : ctx.isolated ? 'none' : 'bridge',
    },
  };
}

/** The downward API fields a pod's env can name (fieldRef). */
function fieldRef(pod: IPod, path: string | undefined): string {
  switch (path) {
    case 'metadata.name': return pod.metadata?.name ?? '';
    case 'metadata.namespace': return pod.metadata?.namespace ?? '';
    case 'metadata.uid': return pod.metadata?.uid ?? '';
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    default: return '';
  }
}

/** The files a kubelet projects into a container whose pod mounts a service-account token. */
export function tokenArchive(namespace: string): Buffer {
  const dir = TOKEN_PATH.slice(1);
  const parts = dir.split('/');
  const dirs = parts.map((_, i) => ({ name: `${parts.slice(0, i + 1).join('/')}/`, mode: 0o755, type: 'dir' as const }));
  const file = (name: string, data: string) => ({ name: `${dir}/${name}`, mode: 0o644, type: 'file' as const, data: Buffer.from(data) });
  return packTar([...dirs, file('token', 'fake-kube-service-account-token'), file('namespace', namespace), file('ca.crt', '')]);
}

/** Best-effort removal (the container may be gone already). */
export async function removeContainer(docker: Docker, id: string): Promise<void> {
  try { await docker.getContainer(id).remove({ force: true, v: true }); } catch (e) {
    const code = (e as { statusCode?: number }).statusCode;
    if (code !== 404 && code !== 409) throw e;
  }
}

/** Everything a server left on the engine, by its label: containers first, then volumes. */
export async function removeAllOf(docker: Docker, serverId: string): Promise<void> {
  const filters = { label: [`${LABEL_SERVER}=${serverId}`] };
  const containers = await docker.listContainers({ all: true, filters });
  await Promise.all(containers.map((c) => removeContainer(docker, c.Id)));
  const { Volumes } = await docker.listVolumes({ filters });
  await Promise.all((Volumes ?? []).map(async (v) => {
    try { await docker.getVolume(v.Name).remove(); } catch (e) { if ((e as { statusCode?: number }).statusCode !== 404) throw e; }
  }));
}
