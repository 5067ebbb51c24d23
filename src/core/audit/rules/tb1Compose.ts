import { parseYamlShared } from '../../parse/yamlShared';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { escapeRegExp } from '../../parse/regex';

/** The task's compose file, its text and its `services` map; undefined when there is none or it does not parse. */
export function composeServices(ctx: AuditContext): { file: string; text: string; services: Record<string, unknown> } | undefined {
  const file = ctx.task.environment.composeFile;
  const text = ctx.text(file);
  if (!file || text === undefined) return undefined;
  let doc: unknown;
  try { doc = parseYamlShared(text); } catch { return undefined; }
  const services = (doc as { services?: unknown } | null)?.services;
  return services && typeof services === 'object' ? { file, text, services: services as Record<string, unknown> } : undefined;
}

/**
 * Terminal-Bench 1 starts the compose project and then looks the agent's container up by the name it
 * passes in `T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME`: a compose file none of whose services takes
 * its `container_name` from the harness leaves nothing for it to find, and the trial fails before the
 * agent starts. A `container_name` built from any variable (the harness's, or the project name it
 * passes with `-p`) is left alone: the harness may well set it.
 */
export const tb1ComposeWithoutHarnessName: StaticRule = {
  id: 'tb1-compose-without-harness-name', class: 'invalidity', severity: 'warning',
  title: 'A Terminal-Bench 1 compose file gives no service the container name the harness looks for',
  *check(ctx) {
    if (ctx.task.format !== 'tb1') return;
    const compose = composeServices(ctx);
    if (!compose) return;
    const { file, text } = compose;
    const entries = Object.entries(compose.services);
    if (entries.length === 0) return;
    const named = entries.some(([, svc]) => {
      const cn = (svc as { container_name?: unknown } | null)?.container_name;
      return typeof cn === 'string' && /\$\{?\w+/.test(cn);
    });
    if (named) return;
    const [first] = entries[0] as [string, unknown];
    const m = new RegExp(`^[ \\t]+${escapeRegExp(first)}\\s*:`, 'm').exec(text);
    const at = m ? m.index + (m[0].length - m[0].trimStart().length) : 0;
    yield {
      file, range: ctx.range(file, at, at + first.length),
      message: `No service takes its container_name from \${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}: Terminal-Bench 1 looks the agent's container up by that name and fails before the agent starts. Give the agent's service \`container_name: \${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\` and \`image: \${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\` (and \`TEST_DIR=\${T_BENCH_TEST_DIR}\` in its environment).`,
    };
  },
};

/**
 * Harbor runs the agent (and, unless the verifier is separate, the tests) in the compose service named
 * `main`; every other service is a sidecar. A compose file with services but none called `main` gives
 * the agent no container: the trial fails before the agent starts.
 */
export const harborComposeWithoutMain: StaticRule = {
  id: 'harbor-compose-without-main', class: 'invalidity', severity: 'warning',
  title: 'A Harbor compose file has no `main` service for the agent',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    const compose = composeServices(ctx);
    // Only the name Harbor reads: a `docker-compose.yml` beside a Dockerfile is often the agent's
    // material (a compose file to fix), not the environment.
    if (!compose?.file.endsWith('docker-compose.yaml')) return;
    // Harbor layers the task's compose file over its own, whose `main` is built from
    // environment/Dockerfile (or is [environment] docker_image): a file of sidecars alone is the
    // documented way to add services. Only with neither is there nothing to run the agent in.
    if (ctx.task.environment.dockerfile !== undefined || ctx.task.environment.dockerImage !== undefined) return;
    const { file, text } = compose;
    const names = Object.keys(compose.services);
    if (names.length === 0 || names.includes('main')) return;
    const m = /^services\s*:/m.exec(text);
    const at = m ? m.index : 0;
    yield {
      file, range: ctx.range(file, at, at + (m ? 'services'.length : 0)),
      message: `The compose file defines ${names.map((n) => `\`${n}\``).join(', ')} but no \`main\` service, and there is no environment/Dockerfile or [environment] docker_image for Harbor's own \`main\`: Harbor runs the agent (and the tests) in \`main\` and treats every other service as a sidecar, so the trial has no container for the agent. Add environment/Dockerfile, or define \`main\` here with a build of the environment.`,
    };
  },
};

/** A root file named like a compose file (`docker-compose.yml`, `dockercompose.yaml`, `compose.yaml`). */
const COMPOSE_LIKE = /^(docker[-_]?compose|compose)\.ya?ml$/i;

/**
 * Terminal-Bench 1 starts every trial with `docker compose -f <task>/docker-compose.yaml` (that exact
 * name; `.yml` is not read): a task without it cannot be started by the harness it is written for.
 * Taskwright's own runner builds a lone Dockerfile, so the task may still run here. A task with no
 * environment at all is missing-environment's.
 */
export const tb1ComposeMissing: StaticRule = {
  id: 'tb1-compose-missing', class: 'invalidity', severity: 'warning',
  title: 'A Terminal-Bench 1 task has no docker-compose.yaml, the file its harness starts it from',
  *check(ctx) {
    if (ctx.task.format !== 'tb1' || ctx.fileSet.has('docker-compose.yaml')) return;
    const env = ctx.task.environment;
    if (env.dockerfile === undefined && env.composeFile === undefined) return;
    const lookalike = ctx.task.files.find((f) => !f.includes('/') && COMPOSE_LIKE.test(f));
    yield {
      file: lookalike ?? ctx.task.configFile,
      message: lookalike
        ? `Terminal-Bench 1 starts the task from docker-compose.yaml next to task.yaml and reads no other name: ${lookalike} is never used, so the harness cannot start a trial. Rename it docker-compose.yaml.`
        : `There is no docker-compose.yaml next to task.yaml: Terminal-Bench 1 starts every trial from that file (building the Dockerfile through it), so the harness cannot start the task. Add the Terminal-Bench 1 compose file (client service with the harness's image and container names).`,
    };
  },
};
