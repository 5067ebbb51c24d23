import Docker from 'dockerode';
import { PassThrough, Readable } from 'node:stream';
import {
  InfraError, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerSummary, type ExecOutcome,
  type ExecRequest,
} from './runtime';
import { OutputBuffer } from './outputBuffer';
import { dockerCommit, dockerDiff, dockerRemoveImage, type FileChange, type SnapshotRuntime } from './snapshot';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function statusCode(e: unknown): number | undefined {
  const c = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof c === 'number' ? c : undefined;
}

/** Connection-level failures mean the engine is unreachable, not that the request was wrong. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'EACCES', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code);
}

function envList(env: Readonly<Record<string, string>> | undefined): string[] | undefined {
  return env ? Object.entries(env).map(([k, v]) => `${k}=${v}`) : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface BuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** The Docker Engine through dockerode; `DOCKER_HOST` (and DOCKER_TLS_VERIFY/DOCKER_CERT_PATH) are honoured. */
export class DockerodeRuntime implements ContainerRuntime, SnapshotRuntime {
  readonly endpoint: string;
  private readonly docker: Docker;

  constructor(docker?: Docker) {
    this.docker = docker ?? new Docker();
    this.endpoint = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  }

  private engineError(e: unknown, what: string): InfraError {
    if (e instanceof InfraError) return e;
    if (isConnectionError(e)) {
      return new InfraError('engine-unreachable', `Docker Engine at ${this.endpoint} is unreachable (${message(e)}) — start it with \`bash scripts/docker-engine.sh\` or set DOCKER_HOST`);
    }
    return new InfraError('other', `${what}: ${message(e)}`);
  }

  async ping(signal?: AbortSignal): Promise<void> {
    try {
      void signal;
      await this.docker.ping();
    } catch (e) {
      throw this.engineError(e, 'ping');
    }
  }

  async imageExists(ref: string): Promise<boolean> {
    try {
      await this.docker.getImage(ref).inspect();
      return true;
    } catch (e) {
      if (statusCode(e) === 404) return false;
      throw this.engineError(e, `inspect image ${ref}`);
    }
  }

  async buildImage(spec: BuildSpec): Promise<void> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), spec.timeoutSec * 1000);
    const onAbort = (): void => timeout.abort();
    spec.signal?.addEventListener('abort', onAbort);
    try {
      let stream: NodeJS.ReadableStream;
      try {
        stream = await this.docker.buildImage(Readable.from([spec.context]), {
          t: spec.tag, dockerfile: spec.dockerfile, networkmode: 'none', rm: true, forcerm: true,
          labels: spec.labels, abortSignal: timeout.signal,
        } as Docker.ImageBuildOptions);
      } catch (e) {
        throw this.engineError(e, 'build');
      }
      let failure: string | undefined;
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve()), (ev: BuildEvent) => {
          if (ev.stream) spec.onLog(ev.stream);
          else if (ev.status) spec.onLog(`${ev.status}\n`);
          if (ev.error || ev.errorDetail) {
            failure = ev.errorDetail?.message ?? ev.error;
            spec.onLog(`ERROR: ${failure}\n`);
          }
        });
      }).catch((e: unknown) => {
        if (spec.signal?.aborted) throw new InfraError('other', 'build cancelled', false);
        if (timeout.signal.aborted) throw new InfraError('build-failed', `build timed out after ${spec.timeoutSec} s`, false);
        throw this.engineError(e, 'build');
      });
      if (spec.signal?.aborted) throw new InfraError('other', 'build cancelled', false);
      if (timeout.signal.aborted) throw new InfraError('build-failed', `build timed out after ${spec.timeoutSec} s`, false);
      if (failure !== undefined) throw new InfraError('build-failed', failure.trim(), false);
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    }
  }

  async start(spec: ContainerSpec, signal?: AbortSignal): Promise<string> {
    let id: string | undefined;
    try {
      const c = await this.docker.createContainer({
        Image: spec.image,
        name: spec.name,
        // The image's own CMD may exit at once; a trial needs a container that stays up until removed.
        Entrypoint: ['/bin/sh', '-c', 'while :; do sleep 3600; done'],
        Cmd: [],
        Env: envList(spec.env),
        WorkingDir: spec.workdir,
        Labels: { ...spec.labels },
        NetworkDisabled: spec.networkMode === 'none',
        HostConfig: {
          NetworkMode: spec.networkMode,
          Privileged: false,
          Init: true,
          NanoCpus: spec.limits.nanoCpus,
          Memory: spec.limits.memoryBytes,
          MemorySwap: spec.limits.memoryBytes,
          PidsLimit: spec.limits.pidsLimit,
        },
        abortSignal: signal,
      } as Docker.ContainerCreateOptions);
      id = c.id;
      await c.start();
      return c.id;
    } catch (e) {
      if (id) await this.remove(id).catch(() => undefined);
      if (statusCode(e) === 404) throw new InfraError('image-missing', `image ${spec.image} is not present locally: ${message(e)}`, false);
      const err = this.engineError(e, `start container from ${spec.image}`);
      throw err.kind === 'other' ? new InfraError('container-start', err.message) : err;
    }
  }

  async exec(containerId: string, req: ExecRequest): Promise<ExecOutcome> {
    const started = Date.now();
    const stdout = new OutputBuffer();
    const stderr = new OutputBuffer();
    const container = this.docker.getContainer(containerId);
    let exec: Docker.Exec;
    let stream: NodeJS.ReadWriteStream;
    try {
      exec = await container.exec({
        Cmd: [...req.cmd], AttachStdout: true, AttachStderr: true, Env: envList(req.env), User: req.user, WorkingDir: req.workdir,
      });
      stream = await exec.start({ hijack: true, stdin: false });
    } catch (e) {
      throw new InfraError('exec-failed', `exec in container ${containerId.slice(0, 12)}: ${message(e)}`);
    }
    const out = new PassThrough();
    const err = new PassThrough();
    out.on('data', (c: Buffer) => { stdout.push(c); req.onStdout?.(c); });
    err.on('data', (c: Buffer) => { stderr.push(c); req.onStderr?.(c); });
    this.docker.modem.demuxStream(stream, out, err);

    type End = 'done' | 'timeout' | 'cancelled';
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const end = await new Promise<End>((resolve) => {
      stream.on('end', () => resolve('done'));
      stream.on('close', () => resolve('done'));
      stream.on('error', () => resolve('done'));
      if (req.timeoutMs !== undefined) timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
      if (req.signal) {
        if (req.signal.aborted) resolve('cancelled');
        onAbort = () => resolve('cancelled');
        req.signal.addEventListener('abort', onAbort);
      }
    });
    if (timer) clearTimeout(timer);
    if (onAbort) req.signal?.removeEventListener('abort', onAbort);
    if (end !== 'done') {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      return { exitCode: null, stdout: stdout.text(), stderr: stderr.text(), timedOut: end === 'timeout', cancelled: end === 'cancelled', durationMs: Date.now() - started };
    }
    // The stream can end a moment before the engine records the exit code.
    let exitCode: number | null = null;
    for (let i = 0; i < 200; i++) {
      let info: Docker.ExecInspectInfo;
      try {
        info = await exec.inspect();
      } catch (e) {
        if (statusCode(e) === 404) throw new InfraError('exec-failed', `container ${containerId.slice(0, 12)} disappeared during exec`);
        throw this.engineError(e, 'exec inspect');
      }
      if (!info.Running && info.ExitCode !== null) { exitCode = info.ExitCode; break; }
      await sleep(i < 20 ? 5 : 25);
    }
    if (exitCode === null) throw new InfraError('exec-failed', `exec in ${containerId.slice(0, 12)} ended without an exit code`);
    return { exitCode, stdout: stdout.text(), stderr: stderr.text(), timedOut: false, cancelled: false, durationMs: Date.now() - started };
  }

  async putArchive(containerId: string, dir: string, tar: Buffer): Promise<void> {
    try {
      await this.docker.getContainer(containerId).putArchive(tar, { path: dir });
    } catch (e) {
      throw new InfraError('copy-failed', `copy into ${dir} of container ${containerId.slice(0, 12)}: ${message(e)}`);
    }
  }

  async getArchive(containerId: string, path: string): Promise<Buffer | undefined> {
    try {
      const stream = await this.docker.getContainer(containerId).getArchive({ path });
      const chunks: Buffer[] = [];
      for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
      return Buffer.concat(chunks);
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw new InfraError('copy-failed', `copy ${path} out of container ${containerId.slice(0, 12)}: ${message(e)}`);
    }
  }

  async remove(containerId: string): Promise<void> {
    try {
      await this.docker.getContainer(containerId).remove({ force: true, v: true });
    } catch (e) {
      const code = statusCode(e);
      // 404: already gone; 409: removal already in progress.
      if (code === 404 || code === 409) return;
      throw this.engineError(e, `remove container ${containerId.slice(0, 12)}`);
    }
  }

  async listByLabel(label: string): Promise<ContainerSummary[]> {
    try {
      const list = await this.docker.listContainers({ all: true, filters: { label: [label] } });
      return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {}, state: c.State }));
    } catch (e) {
      throw this.engineError(e, 'list containers');
    }
  }

  // Snapshots (validate's behavioural checks), implemented in ./snapshot.
  diff(containerId: string): Promise<FileChange[]> { return dockerDiff(this.docker, containerId); }
  commit(containerId: string, labels: Readonly<Record<string, string>>): Promise<string> { return dockerCommit(this.docker, containerId, labels); }
  removeImage(ref: string): Promise<void> { return dockerRemoveImage(this.docker, ref); }
}
