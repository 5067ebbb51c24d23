import Docker from 'dockerode';
import { DockerodeRuntime } from './dockerRuntime';
import { parseEngineAddresses, type EngineAddress } from './engines';
import { EnginePool } from './pool';

/** What a command needs to run trials: one engine, or a pool, and how many trials it runs at once. */
export interface Engines {
  readonly runtime: DockerodeRuntime | EnginePool;
  /** Trials at once: `--concurrency` for one engine, the sum of the engines' slots for a pool. */
  readonly concurrency: number;
  readonly pool?: EnginePool;
}

export function runtimeFor(address: EngineAddress): DockerodeRuntime {
  // Every connection key is given (undefined included), so a DOCKER_HOST in the environment cannot override the address.
  return new DockerodeRuntime(new Docker(address.modem as unknown as Docker.DockerOptions), { endpoint: address.endpoint });
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
