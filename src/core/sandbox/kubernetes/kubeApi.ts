import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import { InfraError } from '../runtime';
import { apiError, isTransientApiError, KubeApiError, retryAfterSec } from './classify';

/**
 * The API server as the backend uses it: the generated clients of `@kubernetes/client-node`, every
 * call bounded by a deadline (a frozen server accepts connections and says nothing) and, for calls
 * that are safe to repeat, tried again on 5xx, 429 (after its Retry-After) and connection errors.
 */
export interface KubeConnection {
  readonly kc: KubeConfig;
  readonly namespace: string;
  /** The API server's URL. */
  readonly server: string;
}

/**
 * The kubeconfig from its default places (the first existing file of `KUBECONFIG`, `~/.kube/config`,
 * or the in-cluster service account), or from `kubeconfigPath`; the namespace from the option, else the current
 * context's, else `default`.
 */
export function loadKube(opts: { kubeconfigPath?: string; namespace?: string; context?: string; env?: NodeJS.ProcessEnv } = {}): KubeConnection {
  const kc = new KubeConfig();
  const env = opts.env ?? process.env;
  try {
    // kubectl's order, read from the given environment (client-node's loadFromDefault reads process.env
    // and falls back to http://localhost:8080, which would hide a missing configuration).
    const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
    const home = path.join(env.HOME || os.homedir(), '.kube', 'config');
    if (opts.kubeconfigPath) kc.loadFromFile(opts.kubeconfigPath);
    else if (fromEnv.length) {
      const missing = fromEnv.filter((f) => !fs.existsSync(f));
      if (missing.length === fromEnv.length) throw new Error(`KUBECONFIG names no file that exists (${fromEnv.join(', ')})`);
      kc.loadFromFile(fromEnv.find((f) => fs.existsSync(f)) as string);
    } else if (fs.existsSync(home)) kc.loadFromFile(home);
    else if (env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
    else throw new Error(`no kubeconfig: KUBECONFIG is not set, ${home} does not exist and this is not a Pod in a cluster`);
    if (opts.context) kc.setCurrentContext(opts.context);
  } catch (e) {
    throw new InfraError('engine-unreachable', `could not read the kubeconfig${opts.kubeconfigPath ? ` ${opts.kubeconfigPath}` : ''}: ${e instanceof Error ? e.message : String(e)}`, false);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new InfraError('engine-unreachable', 'no Kubernetes cluster is configured (no current context in the kubeconfig, KUBECONFIG, ~/.kube/config, and not running in a cluster)', false);
  const ctx = kc.getContextObject(kc.getCurrentContext());
  return { kc, namespace: opts.namespace || ctx?.namespace || 'default', server: cluster.server };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class KubeApi {
  readonly core: CoreV1Api;
  readonly net: NetworkingV1Api;
  readonly endpoint: string;

  constructor(readonly conn: KubeConnection, readonly callTimeoutMs = 60_000, private readonly retryBaseMs = 250) {
    this.core = conn.kc.makeApiClient(CoreV1Api);
    this.net = conn.kc.makeApiClient(NetworkingV1Api);
    this.endpoint = `kubernetes:${conn.server}/namespaces/${conn.namespace}`;
  }

  get namespace(): string {
    return this.conn.namespace;
  }

  /**
   * One API call with a deadline; `tries` > 1 repeats it on transient failures (only for calls
   * that are safe to repeat: reads, deletes, and creates whose conflict the caller resolves).
   */
  async call<T>(what: string, fn: () => Promise<T>, tries = 4): Promise<T> {
    for (let i = 1; ; i++) {
      let timer: NodeJS.Timeout | undefined;
      const work = fn();
      try {
        return await Promise.race([work, new Promise<never>((_r, reject) => {
          timer = setTimeout(() => reject(new InfraError('engine-timeout', `the Kubernetes API at ${this.conn.server} did not answer ${what} within ${Math.round(this.callTimeoutMs / 1000)} s`)), this.callTimeoutMs);
        })]);
      } catch (e) {
        if (i < tries && isTransientApiError(e)) {
          const after = retryAfterSec(e);
          await sleep(after !== undefined ? Math.min(after * 1000, 30_000) : this.retryBaseMs * 2 ** (i - 1));
          continue;
        }
        throw apiError(e, what, this.conn.server);
      } finally {
        clearTimeout(timer);
        work.catch(() => undefined);
      }
    }
  }
}

/** The HTTP status of a failed call, when the server answered. */
export function statusOf(e: unknown): number | undefined {
  if (e instanceof KubeApiError) return e.status;
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'number' ? c : undefined;
}

/** The object is not there (404), from `KubeApi.call` or the generated clients. */
export function isGone(e: unknown): boolean {
  return statusOf(e) === 404;
}
