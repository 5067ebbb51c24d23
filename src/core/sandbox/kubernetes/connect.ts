import { KubeApi, loadKube } from './kubeApi';
import { KubernetesRuntime } from './kubeRuntime';
import { DockerPublisher } from './publish';
import { parseRegistry, Registry, RegistryError } from './registry';

export interface KubernetesConnectOptions {
  /** The registry the cluster pulls from (`--registry`, `taskwright.sandbox.registry`). */
  readonly registry: string | undefined;
  /** Namespace of the trial Pods; default: the kubeconfig context's, else `default`. */
  readonly namespace?: string;
  /** A kubeconfig file instead of the default places (KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfigPath?: string;
  /** Pods of the run at once, cluster-wide. */
  readonly concurrency: number;
  /** Build and push images the registry lacks on the local Docker engine (default true). */
  readonly publish?: boolean;
  readonly onWarning?: (text: string) => void;
  readonly env?: NodeJS.ProcessEnv;
}

export class KubernetesSetupError extends Error {}

/** The Kubernetes backend for a command: the cluster of the kubeconfig, the registry named, a budget of `concurrency` Pods. */
export function connectKubernetes(o: KubernetesConnectOptions): KubernetesRuntime {
  if (!o.registry) throw new KubernetesSetupError('the kubernetes backend needs a registry the cluster pulls task images from (--registry host[:port][/prefix], or the setting taskwright.sandbox.registry)');
  let address;
  try {
    address = parseRegistry(o.registry);
  } catch (e) {
    if (e instanceof RegistryError) throw new KubernetesSetupError(`--registry: ${e.message}`);
    throw e;
  }
  const env = o.env ?? process.env;
  const conn = loadKube({ ...(o.kubeconfigPath ? { kubeconfigPath: o.kubeconfigPath } : {}), ...(o.namespace ? { namespace: o.namespace } : {}), env });
  const timeoutSec = Number(env.TASKWRIGHT_ENGINE_TIMEOUT_SEC);
  const api = new KubeApi(conn, Number.isFinite(timeoutSec) && timeoutSec > 0 ? timeoutSec * 1000 : 60_000);
  return new KubernetesRuntime({
    api, registry: new Registry(address), slots: Math.max(1, o.concurrency),
    ...(o.publish === false ? {} : { publisher: new DockerPublisher(address, undefined, env) }),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
  });
}
