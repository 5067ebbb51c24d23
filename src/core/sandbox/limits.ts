import type { Task } from '../model/task';
import type { ContainerLimits } from './runtime';

/** Used when a task states no limit: enough for the small tasks of both formats, bounded for the host. */
export const DEFAULT_LIMITS = { cpus: 1, memoryMb: 2048, pids: 1024 } as const;

export function limitsFor(task: Task, overrides: Partial<{ cpus: number; memoryMb: number; pids: number }> = {}): ContainerLimits {
  const cpus = overrides.cpus ?? task.environment.cpus ?? DEFAULT_LIMITS.cpus;
  const memoryMb = overrides.memoryMb ?? task.environment.memoryMb ?? DEFAULT_LIMITS.memoryMb;
  const pids = overrides.pids ?? DEFAULT_LIMITS.pids;
  const storageMb = task.environment.storageMb;
  return {
    nanoCpus: Math.round(cpus * 1e9), memoryBytes: Math.round(memoryMb * 1024 * 1024), pidsLimit: pids,
    ...(storageMb ? { storageBytes: Math.round(storageMb * 1024 * 1024) } : {}),
  };
}
