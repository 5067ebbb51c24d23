import Docker from 'dockerode';
import { DockerodeRuntime } from '../dockerRuntime';
import { InfraError, type BuildSpec } from '../runtime';
import type { ImagePublisher } from './kubeRuntime';
import { dockerConfigAuth, splitRef, type RegistryAddress } from './registry';

interface PushEvent {
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Task images for a cluster, made on the local Docker engine: built under their content-hash tag
 * (when not already there), tagged with the registry's name and pushed. The registry keeps the
 * tag; the cluster's nodes pull it.
 */
export class DockerPublisher implements ImagePublisher {
  private readonly docker: Docker;
  private readonly builder: DockerodeRuntime;

  constructor(private readonly registry: RegistryAddress, docker?: Docker, private readonly env: NodeJS.ProcessEnv = process.env) {
    this.docker = docker ?? new Docker();
    this.builder = new DockerodeRuntime(this.docker);
  }

  async publish(spec: BuildSpec, remoteRef: string): Promise<void> {
    if (await this.builder.imageExists(spec.tag)) spec.onLog(`${spec.tag} is built locally (build context unchanged)\n`);
    else await this.builder.buildImage(spec);
    await this.push(spec.tag, remoteRef, spec.onLog, spec.signal);
  }

  /** Tags a local image with its registry name and pushes it. */
  async push(localRef: string, remoteRef: string, onLog: (t: string) => void = () => undefined, signal?: AbortSignal): Promise<void> {
    const { repo, tag } = splitRef(this.registry, remoteRef);
    const full = `${this.registry.host}/${repo}`;
    try {
      await this.docker.getImage(localRef).tag({ repo: full, tag });
    } catch (e) {
      throw new InfraError('image-missing', `could not tag ${localRef} as ${remoteRef}: ${message(e)}`, false);
    }
    onLog(`pushing ${remoteRef}\n`);
    const creds = dockerConfigAuth(this.registry.host, this.env);
    const [username, ...rest] = (creds ?? '').split(':');
    const authconfig = creds ? { username, password: rest.join(':'), serveraddress: this.registry.host } : { serveraddress: this.registry.host };
    let failure: string | undefined;
    try {
      const stream = await this.docker.getImage(`${full}:${tag}`).push({ authconfig, ...(signal ? { abortSignal: signal } : {}) } as Docker.ImagePushOptions);
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve()), (ev: PushEvent) => {
          if (ev.error || ev.errorDetail) failure = ev.errorDetail?.message ?? ev.error;
          else if (ev.status && /^(Pushed|Layer already exists|latest|[a-z0-9]+: digest)/i.test(ev.status)) onLog(`${ev.status}\n`);
        });
      });
    } catch (e) {
      failure ??= message(e);
    }
    if (signal?.aborted) throw new InfraError('other', `push of ${remoteRef} cancelled`, false);
    // A registry that refuses or is down is infrastructure; the next try (or `images push`) pushes again.
    if (failure !== undefined) throw new InfraError('image-missing', `push of ${remoteRef} to ${this.registry.host} failed: ${failure}`);
    onLog(`pushed ${remoteRef}\n`);
  }
}
