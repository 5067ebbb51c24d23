import Docker from 'dockerode';
import { PassThrough, Readable } from 'node:stream';
import {
  InfraError, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary,
  type ExecOutcome, type ExecRequest, type OomWatch,
} from './runtime';
import { engineTimeoutMs, withDeadline } from './engineDeadline';
import { OutputBuffer } from './outputBuffer';
import { environmentDockerOptions } from './engines';
import { transportProblem } from './transportErrors';
import { copyImage } from './imageTransfer';
import { dockerCommit, dockerDiff, dockerImagesByLabel, dockerRemoveImage, type FileChange, type SnapshotRuntime } from './snapshot';

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
  /** Deadline of each engine call (see engineTimeoutMs). */
  readonly callTimeoutMs: number;
  /** tcp:// with TLS: the folder its certificates came from, named when TLS fails. */
  private readonly certDir: string | undefined;

  constructor(docker?: Docker, opts: { callTimeoutMs?: number; endpoint?: string; certDir?: string } = {}) {
    this.docker = docker ?? new Docker(environmentDockerOptions());
    this.certDir = opts.certDir;
    this.endpoint = opts.endpoint ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    this.callTimeoutMs = opts.callTimeoutMs ?? engineTimeoutMs();
  }

  private call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    return withDeadline(this.endpoint, what, this.callTimeoutMs, fn, outer);
  }

  private engineError(e: unknown, what: string): InfraError {
    if (e instanceof InfraError) return e;
    const why = transportProblem(e, this.certDir);
    if (why) return new InfraError('engine-unreachable', `Docker Engine at ${this.endpoint} is unreachable: ${why}`);
    if (isConnectionError(e)) {
      return new InfraError('engine-unreachable', `Docker Engine at ${this.endpoint} is unreachable (${message(e)}) — start it with \`bash scripts/docker-engine.sh\` or set DOCKER_HOST`);
    }
    return new InfraError('other', `${what}: ${message(e)}`);
  }

  async ping(signal?: AbortSignal): Promise<void> {
    try {
      await this.call('a ping', (sig) => (this.docker.ping as unknown as (o: { abortSignal: AbortSignal }) => Promise<unknown>).call(this.docker, { abortSignal: sig }), signal);
    } catch (e) {
      throw this.engineError(e, 'ping');
    }
  }

  async imageExists(ref: string): Promise<boolean> {
    try {
      await this.call(`inspect image ${ref}`, () => this.docker.getImage(ref).inspect());
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
        const context = Buffer.isBuffer(spec.context) ? Readable.from([spec.context]) : spec.context;
        stream = await this.docker.buildImage(context, {
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
      const c = await this.call('create container', (sig) => this.docker.createContainer({
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
        abortSignal: sig,
      } as Docker.ContainerCreateOptions), signal);
      id = c.id;
      // A cancel that lands while the engine creates the container: it exists, the caller never
      // learns its id, so it is removed here rather than left to the reaper.
      if (signal?.aborted) throw new InfraError('other', 'cancelled while the container was created', false);
      await this.call('start container', (sig) => c.start({ abortSignal: sig }));
      if (signal?.aborted) throw new InfraError('other', 'cancelled while the container was started', false);
      return c.id;
    } catch (e) {
      if (id) await this.remove(id).catch(() => undefined);
      // An aborted create request may still be carried out by the engine after the client hung up:
      // remove it by its name, again a moment later in case the engine was still creating it.
      else if (signal?.aborted && spec.name) await this.removeCreatedByName(spec.name);
      if (e instanceof InfraError) throw e;
      if (statusCode(e) === 404) throw new InfraError('image-missing', `image ${spec.image} is not present locally: ${message(e)}`, false);
      const err = this.engineError(e, `start container from ${spec.image}`);
      throw err.kind === 'other' ? new InfraError('container-start', err.message) : err;
    }
  }

  private async removeCreatedByName(name: string): Promise<void> {
    for (const waitMs of [0, 250, 1000]) {
      await sleep(waitMs);
      await this.remove(name).catch(() => undefined);
    }
  }

  async watchOom(containerId: string): Promise<OomWatch> {
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.getEvents({ filters: { container: [containerId], event: ['oom'], type: ['container'] } });
    } catch (e) {
      throw this.engineError(e, 'watch events');
    }
    let count = 0;
    let buf = '';
    stream.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        if (buf.slice(0, i).includes('"oom"')) count++;
        buf = buf.slice(i + 1);
      }
    });
    stream.on('error', () => undefined);
    return {
      stop: async () => {
        // The event trails the kill by a few milliseconds.
        await sleep(150);
        (stream as unknown as { destroy?: () => void }).destroy?.();
        return count + (buf.includes('"oom"') ? 1 : 0);
      },
    };
  }

  async inspect(containerId: string): Promise<ContainerState | undefined> {
    try {
      const info = await this.docker.getContainer(containerId).inspect();
      const lifetimeMs = Date.parse(info.State.FinishedAt) - Date.parse(info.State.StartedAt);
      return {
        running: info.State.Running, oomKilled: info.State.OOMKilled, exitCode: info.State.Running ? null : info.State.ExitCode,
        ...(!info.State.Running && Number.isFinite(lifetimeMs) && lifetimeMs >= 0 ? { lifetimeMs } : {}),
      };
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw this.engineError(e, `inspect container ${containerId.slice(0, 12)}`);
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
      exec = await this.call('create exec', (sig) => container.exec({
        Cmd: [...req.cmd], AttachStdout: true, AttachStderr: true, Env: envList(req.env), User: req.user, WorkingDir: req.workdir,
        abortSignal: sig,
      } as Docker.ExecCreateOptions));
      const e = exec;
      stream = await this.call('start exec', (sig) => e.start({ hijack: true, stdin: false, abortSignal: sig } as Docker.ExecStartOptions));
    } catch (e) {
      if (e instanceof InfraError && e.kind === 'engine-timeout') throw e;
      if (isConnectionError(e)) throw this.engineError(e, 'exec');
      throw new InfraError('exec-failed', `exec in container ${containerId.slice(0, 12)}: ${message(e)}`);
    }
    const out = new PassThrough();
    const err = new PassThrough();
    // The callers' callbacks write logs: a failure there (a full disk) ends the exec and is rethrown
    // after it, never thrown inside the stream's event handler (that would crash the process).
    let callbackError: unknown;
    let endEarly: (() => void) | undefined;
    const guarded = (buf: OutputBuffer, cb: ((c: Buffer) => void) | undefined) => (c: Buffer): void => {
      buf.push(c);
      if (!cb || callbackError !== undefined) return;
      try {
        cb(c);
      } catch (e) {
        callbackError = e;
        endEarly?.();
      }
    };
    out.on('data', guarded(stdout, req.onStdout));
    err.on('data', guarded(stderr, req.onStderr));
    this.docker.modem.demuxStream(stream, out, err);

    type End = 'done' | 'timeout' | 'cancelled' | 'engine' | 'callback';
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // A quiet stream may be a quiet command or a frozen engine: a health ping tells them apart.
    let heartbeat: NodeJS.Timeout | undefined;
    let engineDown: InfraError | undefined;
    const end = await new Promise<End>((resolve) => {
      endEarly = () => resolve('callback');
      heartbeat = setInterval(() => {
        this.ping().catch((e: unknown) => {
          engineDown = e instanceof InfraError ? e : new InfraError('engine-timeout', message(e));
          resolve('engine');
        });
      }, this.callTimeoutMs);
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
    clearInterval(heartbeat);
    if (onAbort) req.signal?.removeEventListener('abort', onAbort);
    if (end === 'callback') {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      throw callbackError;
    }
    if (end === 'engine') {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      throw engineDown ?? new InfraError('engine-timeout', `Docker Engine at ${this.endpoint} stopped answering`);
    }
    if (end !== 'done') {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      return { exitCode: null, stdout: stdout.text(), stderr: stderr.text(), timedOut: end === 'timeout', cancelled: end === 'cancelled', durationMs: Date.now() - started };
    }
    // The stream can end a moment before the engine records the exit code.
    let exitCode: number | null = null;
    for (let i = 0; i < 200; i++) {
      let info: Docker.ExecInspectInfo;
      try {
        info = await this.call('inspect exec', (sig) => exec.inspect({ abortSignal: sig }));
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

  async putArchive(containerId: string, dir: string, tar: Buffer | Readable): Promise<void> {
    try {
      // A stream is bounded by progress, not total time: each chunk the engine takes re-arms the deadline.
      if (Buffer.isBuffer(tar)) {
        await this.call(`copy into ${dir}`, (sig) => this.docker.getContainer(containerId).putArchive(tar, { path: dir, abortSignal: sig }));
      } else {
        await this.streamingCall(`copy into ${dir}`, tar, (sig) => this.docker.getContainer(containerId).putArchive(tar, { path: dir, abortSignal: sig }));
      }
    } catch (e) {
      if (e instanceof InfraError && e.kind === 'engine-timeout') throw e;
      if (isConnectionError(e)) throw this.engineError(e, 'copy');
      // The engine answered and refused (no space in the container, a bad archive): trying again
      // copies the same bytes into the same image, so it is not retried.
      const answered = statusCode(e) !== undefined;
      throw new InfraError('copy-failed', `copy into ${dir} of container ${containerId.slice(0, 12)}: ${message(e)}`, !answered);
    }
  }

  private async streamingCall<T>(what: string, input: Readable, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let failed: InfraError | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        failed = new InfraError('engine-timeout', `Docker Engine at ${this.endpoint} stopped taking ${what} for ${Math.round(this.callTimeoutMs / 1000)} s (frozen or overloaded)`);
        ctl.abort(failed);
        input.destroy();
      }, this.callTimeoutMs);
    };
    input.on('data', arm);
    arm();
    try {
      return await fn(ctl.signal);
    } catch (e) {
      throw failed ?? e;
    } finally {
      clearTimeout(timer);
      input.off('data', arm);
    }
  }

  async getArchive(containerId: string, path: string): Promise<Readable | undefined> {
    try {
      const stream = await this.call(`copy ${path} out`, (sig) => this.docker.getContainer(containerId).getArchive({ path, abortSignal: sig }));
      return stream as unknown as Readable;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      if (e instanceof InfraError && e.kind === 'engine-timeout') throw e;
      if (isConnectionError(e)) throw this.engineError(e, 'copy');
      throw new InfraError('copy-failed', `copy ${path} out of container ${containerId.slice(0, 12)}: ${message(e)}`);
    }
  }

  async remove(containerId: string): Promise<void> {
    try {
      await this.call(`remove container ${containerId.slice(0, 12)}`, (sig) => this.docker.getContainer(containerId).remove({ force: true, v: true, abortSignal: sig }));
    } catch (e) {
      const code = statusCode(e);
      // 404: already gone; 409: removal already in progress.
      if (code === 404 || code === 409) return;
      throw this.engineError(e, `remove container ${containerId.slice(0, 12)}`);
    }
  }

  async listByLabel(label: string): Promise<ContainerSummary[]> {
    try {
      const list = await this.call('list containers', (sig) => this.docker.listContainers({ all: true, filters: { label: [label] }, abortSignal: sig }));
      return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {}, state: c.State }));
    } catch (e) {
      throw this.engineError(e, 'list containers');
    }
  }

  // Snapshots (validate's behavioural checks), implemented in ./snapshot.
  diff(containerId: string): Promise<FileChange[]> { return dockerDiff(this.docker, containerId); }
  commit(containerId: string, labels: Readonly<Record<string, string>>): Promise<string> { return dockerCommit(this.docker, containerId, labels); }
  removeImage(ref: string): Promise<void> { return dockerRemoveImage(this.docker, ref); }
  imagesByLabel(labels: readonly string[]): Promise<string[]> { return dockerImagesByLabel(this.docker, labels); }

  /** Copies an image from this engine to another (`docker save | docker load`, streamed; see ./imageTransfer). */
  copyImageTo(target: DockerodeRuntime, ref: string, signal?: AbortSignal): Promise<void> {
    return copyImage(this.docker, target.docker, ref, { stallMs: this.callTimeoutMs, from: this.endpoint, to: target.endpoint, signal });
  }
}
