import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../model/task';
import { parseYamlShared } from '../parse/yamlShared';

/**
 * What the sandbox takes from a task's compose file: the main service only (TB1 calls it `client`,
 * Harbor `main`; a file with one service uses that one). Anything that needs a second container
 * is reported, not silently dropped.
 */
export interface ComposeMain {
  readonly service: string;
  readonly build?: { readonly context: string; readonly dockerfile: string };
  readonly image?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir?: string;
  /** Services that would have to run beside the main one (not supported yet). */
  readonly otherServices: readonly string[];
  readonly notes: readonly string[];
}

/**
 * The variables each harness sets when it runs a task's compose file, so `${CONTEXT_DIR}/..` or
 * `${T_BENCH_TEST_DIR}` resolve as they do there (an unset variable would read as empty and turn
 * `${CONTEXT_DIR}/..` into `/..`). TB1: terminal_bench's docker-compose manager; Harbor: its
 * DockerEnvironmentEnvVars, where CONTEXT_DIR is the task's environment folder.
 */
export function composeVars(task: Pick<Task, 'format' | 'dir' | 'environment'>, imageName: string, containerName: string): Record<string, string> {
  if (task.format === 'harbor') {
    return {
      MAIN_IMAGE_NAME: imageName,
      CONTEXT_DIR: path.resolve(task.dir, task.environment.contextDir),
      TEST_DIR: '/tests',
      HOST_VERIFIER_LOGS_PATH: '/tmp/tw-logs/verifier',
      HOST_AGENT_LOGS_PATH: '/tmp/tw-logs/agent',
      HOST_ARTIFACTS_PATH: '/tmp/tw-logs/artifacts',
      ENV_VERIFIER_LOGS_PATH: '/logs/verifier',
      ENV_AGENT_LOGS_PATH: '/logs/agent',
      ENV_ARTIFACTS_PATH: '/logs/artifacts',
      CPUS: String(task.environment.cpus ?? 1),
      MEMORY: `${task.environment.memoryMb ?? 1024}M`,
    };
  }
  return {
    T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME: imageName,
    T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME: containerName,
    T_BENCH_TASK_DOCKER_NAME_PREFIX: containerName,
    T_BENCH_TEST_DIR: '/tests',
    T_BENCH_CONTAINER_LOGS_PATH: '/logs',
    T_BENCH_CONTAINER_AGENT_LOGS_PATH: '/agent-logs',
    T_BENCH_TASK_LOGS_PATH: '/tmp/tw-logs',
    T_BENCH_TASK_AGENT_LOGS_PATH: '/tmp/tw-agent-logs',
    T_BENCH_TASK_DOCKER_FILE_PATH: 'Dockerfile',
  };
}

function substitute(value: string, vars: Readonly<Record<string, string>>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, def: string | undefined, b: string | undefined) => {
    const name = a ?? b ?? '';
    return vars[name] ?? def ?? '';
  });
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * The main service of a compose file. Harbor layers the task's file over its own, whose `main` is
 * built from environment/Dockerfile: there the main service is `main` alone, and a file without one
 * only adds sidecars (returned with no build or image, its services as `otherServices`). TB1 runs the
 * file as is: `client`, else `main`, else its only service.
 */
export function readComposeMain(file: string, vars: Readonly<Record<string, string>>, format: Task['format'] = 'tb1'): ComposeMain {
  const doc = asRecord(parseYamlShared(fs.readFileSync(file, 'utf8')));
  const services = asRecord(doc?.services);
  if (!services || Object.keys(services).length === 0) throw new Error(`${file}: no services`);
  const names = Object.keys(services);
  const name = format === 'harbor' ? 'main' : ['client', 'main'].find((n) => n in services) ?? (names.length === 1 ? names[0] : undefined);
  if (!name) throw new Error(`${file}: no main service (expected 'client' or 'main', found ${names.join(', ')})`);
  const svc = asRecord(services[name]) ?? {};
  const dir = path.dirname(file);
  const notes: string[] = [];
  let build: ComposeMain['build'];
  if (typeof svc.build === 'string') build = { context: path.resolve(dir, substitute(svc.build, vars)), dockerfile: 'Dockerfile' };
  else if (asRecord(svc.build)) {
    const b = asRecord(svc.build) ?? {};
    const ctx = typeof b.context === 'string' ? substitute(b.context, vars) : '.';
    build = { context: path.resolve(dir, ctx), dockerfile: typeof b.dockerfile === 'string' ? substitute(b.dockerfile, vars) : 'Dockerfile' };
    if (b.args) notes.push(`build args of service '${name}' are not passed yet`);
  }
  const env: Record<string, string> = {};
  if (Array.isArray(svc.environment)) {
    for (const item of svc.environment) {
      if (typeof item !== 'string') continue;
      const i = item.indexOf('=');
      if (i > 0) env[item.slice(0, i)] = substitute(item.slice(i + 1), vars);
    }
  } else if (asRecord(svc.environment)) {
    for (const [k, v] of Object.entries(asRecord(svc.environment) ?? {})) if (v !== null && v !== undefined) env[k] = substitute(String(v), vars);
  }
  for (const key of ['ports', 'networks', 'depends_on', 'privileged', 'cap_add', 'devices']) {
    if (svc[key] !== undefined) notes.push(`'${key}' of service '${name}' is ignored (trials run alone, network none, unprivileged)`);
  }
  if (Array.isArray(svc.volumes) && svc.volumes.some((v) => typeof v === 'string' && !/T_BENCH_|_LOGS_PATH|ARTIFACTS_PATH/.test(v))) {
    notes.push(`volumes of service '${name}' other than the harness's log folders are not mounted`);
  }
  const image = typeof svc.image === 'string' ? substitute(svc.image, vars) : undefined;
  return {
    service: name,
    build,
    image: image || undefined,
    env,
    workdir: typeof svc.working_dir === 'string' ? svc.working_dir : undefined,
    otherServices: names.filter((n) => n !== name),
    notes,
  };
}
