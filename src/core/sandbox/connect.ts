import Docker from 'dockerode';
import { DockerodeRuntime } from './dockerRuntime';
import { dockerOptionsOf, parseEngineAddresses, type EngineAddress } from './engines';
import { EnginePool } from './pool';
import type { ContainerRuntime } from './runtime';
import { connectKubernetes, type KubernetesConnectOptions } from './kubernetes/connect';
import type { KubernetesRuntime } from './kubernetes/kubeRuntime';

/** Where trials run: Docker (one engine or a pool) or a Kubernetes cluster. */
export type Backend = 'docker' | 'kubernetes';
export const BACKENDS: readonly Backend[] = ['docker', 'kubernetes'];

/** What a command needs to run trials: one engine, or a pool, and how many trials it runs at once. */
export interface Engines {
  readonly runtime: ContainerRuntime;
  /** Trials at once: `--concurrency` for one engine, the sum of the engines' slots for a pool, the cluster's Pod budget. */
  readonly concurrency: number;
  readonly pool?: EnginePool;
  readonly kubernetes?: KubernetesRuntime;
}

export function runtimeFor(address: EngineAddress): DockerodeRuntime {
  return new DockerodeRuntime(new Docker(dockerOptionsOf(address) as Docker.DockerOptions), { endpoint: address.endpoint, ...(address.certDir ? { certDir: address.certDir } : {}) });
}

/**
 * The engines a command runs on: none given, the one engine of the environment (DOCKER_HOST or the
 * local socket); one or more, each at its address, with `concurrency` slots unless the address says
 * `?slots=N`. Several make a pool; a single `--engine` is just that engine.
 */
export function connectEngines(addresses: readonly string[], concurrency: number, env: NodeJS.ProcessEnv = process.env, onDrain?: (endpoint: string, reason: string) => void): Engines {
  if (!addresses.length) return { runtime: new DockerodeRuntime(), concurrency };
  const parsed = parseEngineAddresses(addresses, env);
  if (parsed.length === 1) return { runtime: runtimeFor(parsed[0] as EngineAddress), concurrency: parsed[0]?.slots ?? concurrency };
  const pool = new EnginePool(parsed.map((a) => ({ runtime: runtimeFor(a), slots: a.slots ?? concurrency })), onDrain);
  return { runtime: pool, concurrency: pool.capacity, pool };
}

export interface BackendOptions extends Omit<KubernetesConnectOptions, 'concurrency' | 'env'> {
  readonly backend: Backend;
  /** Docker engine addresses (`--engine`); not used with Kubernetes. */
  readonly engines: readonly string[];
  readonly concurrency: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly onDrain?: (endpoint: string, reason: string) => void;
}

/** The runtime of a command for the backend chosen (`--backend`, `taskwright.sandbox.backend`). */
export function connectBackend(o: BackendOptions): Engines {
  if (o.backend === 'docker') return connectEngines(o.engines, o.concurrency, o.env ?? process.env, o.onDrain);
  const runtime = connectKubernetes({ ...o, env: o.env ?? process.env });
  return { runtime, concurrency: o.concurrency, kubernetes: runtime };
}
