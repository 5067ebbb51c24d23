import { BACKENDS, connectBackend, type Backend, type Engines } from '../core/sandbox/connect';
import { EngineAddressError } from '../core/sandbox/engines';
import { KubernetesSetupError } from '../core/sandbox/kubernetes/connect';
import { InfraError } from '../core/sandbox/runtime';
import { choiceOpt, stringOpt, UsageError, type CliIo, type ParsedArgs } from './command';

/** The options `run` and `validate` take to choose where trials run. */
export const BACKEND_OPTIONS = {
  backend: { type: 'string' }, registry: { type: 'string' }, namespace: { type: 'string' },
} as const;

export const BACKEND_USAGE = [
  '  --backend B    docker (default; TASKWRIGHT_BACKEND) or kubernetes: one Pod per trial on the cluster of the',
  '                 kubeconfig (KUBECONFIG, ~/.kube/config, in-cluster); --concurrency is the cluster-wide Pod budget',
  '  --registry R   kubernetes: the registry the cluster pulls task images from (host[:port][/prefix]); missing',
  '                 images are built on the local Docker engine and pushed (TASKWRIGHT_REGISTRY)',
  '  --namespace N  kubernetes: namespace of the trial Pods (default: the kubeconfig context\'s, else default)',
];

/** `--engine URL` as given (repeatable). */
export function engineArgs(args: ParsedArgs): string[] {
  const v = args.values.engine;
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string');
}

/** The backend named by `--backend`, else TASKWRIGHT_BACKEND, else docker. */
export function backendOf(args: ParsedArgs, io: CliIo): Backend {
  const fromEnv = io.env.TASKWRIGHT_BACKEND;
  if (fromEnv !== undefined && fromEnv !== '' && !(BACKENDS as readonly string[]).includes(fromEnv)) {
    throw new UsageError(`TASKWRIGHT_BACKEND takes one of ${BACKENDS.join('|')} (got '${fromEnv}')`);
  }
  return choiceOpt(args, 'backend', BACKENDS, (fromEnv || 'docker') as Backend);
}

/** The engine, pool of engines or cluster for `run` / `validate`; a bad address or setup is a usage error. */
export function enginesOf(args: ParsedArgs, io: CliIo, concurrency: number): Engines {
  const backend = backendOf(args, io);
  const engines = engineArgs(args);
  if (backend === 'kubernetes' && engines.length) throw new UsageError('--engine names Docker engines; it does not go with --backend kubernetes');
  if (backend === 'docker' && (stringOpt(args, 'registry') !== undefined || stringOpt(args, 'namespace') !== undefined)) {
    throw new UsageError('--registry and --namespace are for --backend kubernetes');
  }
  try {
    const registry = stringOpt(args, 'registry') ?? io.env.TASKWRIGHT_REGISTRY;
    const namespace = stringOpt(args, 'namespace');
    let warned = false;
    return connectBackend({
      backend, engines, concurrency, env: io.env, registry, ...(namespace ? { namespace } : {}),
      onDrain: (endpoint, reason) => {
        io.err(`taskwright: engine ${endpoint} stopped answering and was drained (${reason}); its trials are redone on the others`);
      },
      onWarning: (text) => { if (!warned) io.err(`taskwright: warning: ${text}`); warned = true; },
    });
  } catch (e) {
    if (e instanceof EngineAddressError) throw new UsageError(`--engine: ${e.message}`);
    if (e instanceof KubernetesSetupError) throw new UsageError(e.message);
    if (e instanceof InfraError && backend === 'kubernetes') throw new UsageError(e.message);
    throw e;
  }
}

/** After a pooled run: where the trials ran, and the containers a drained engine may still hold, removed if it is back. */
export async function finishEngines(engines: Engines, io: CliIo): Promise<void> {
  const pool = engines.pool;
  if (!pool) return;
  const swept = await pool.sweepStranded();
  pool.close();
  for (const s of pool.stats()) {
    io.err(`taskwright: engine ${s.endpoint}: ${s.started} trial(s), ${s.slots} slot(s)${s.drained ? `, drained (${s.drained})` : ''}`);
  }
  if (swept.removed) io.err(`taskwright: removed ${swept.removed} container(s) left on an engine that answers again`);
  if (swept.left || swept.imagesLeft) io.err(`taskwright: ${swept.left} container(s) and ${swept.imagesLeft} snapshot image(s) may remain on a drained engine; the next run's reaper removes the containers once it answers`);
}
