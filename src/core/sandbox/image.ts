import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../model/task';
import { readBuildContext } from './buildContext';
import { DiskFullError, isDiskFull } from '../results/diskFull';
import { composeVars, readComposeMain } from './compose';
import { assertInsideTask } from './contain';
import { InfraError, LABEL, LABEL_TASK, type ContainerRuntime } from './runtime';

/** The image a task's trials start from, and how it was obtained. */
export interface TaskImage {
  readonly ref: string;
  /** True when this call built it; false when an identical build was already present. */
  readonly built: boolean;
  readonly source: 'dockerfile' | 'compose' | 'docker_image';
  readonly buildSec: number;
  /** Environment and working folder the compose file gives the main service. */
  readonly env: Readonly<Record<string, string>>;
  readonly workdir?: string;
  readonly notes: readonly string[];
}

export interface EnsureImageOptions {
  readonly onLog?: (text: string) => void;
  /** Appends the build output here (the trial's or the run's build log). */
  readonly logFile?: string;
  readonly signal?: AbortSignal;
}

/** Docker image names: lowercase, limited alphabet. */
export function imageRepo(taskId: string): string {
  const clean = taskId.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '') || 'task';
  return `taskwright/${clean}`;
}

function taskFile(task: Task, rel: string): string {
  return path.resolve(task.dir, rel);
}

/** What the image cache needs of a backend: is the tag there, and build it. */
export type ImageRuntime = Pick<ContainerRuntime, 'imageExists' | 'buildImage' | 'knowsImage'>;

/**
 * Builds (or reuses) a task's image. Concurrent callers for the same tag share one build, so N
 * trials of one task build once.
 */
export class ImageCache {
  private readonly inflight = new Map<string, Promise<TaskImage>>();
  /** Tags confirmed present during this cache's life (one run): later trials skip the engine call. */
  private readonly known = new Set<string>();

  constructor(private readonly runtime: ImageRuntime) {}

  ensure(task: Task, opts: EnsureImageOptions = {}): Promise<TaskImage> {
    const key = task.dir;
    const existing = this.inflight.get(key);
    if (existing) return existing.then((img) => ({ ...img, built: false }));
    const p = this.resolve(task, opts);
    this.inflight.set(key, p);
    // Only in-flight builds are shared; afterwards the content-hash tag answers "is it built?".
    const done = (): void => { this.inflight.delete(key); };
    p.then(done, done);
    return p;
  }

  private async resolve(task: Task, opts: EnsureImageOptions): Promise<TaskImage> {
    // Called from the engine's progress stream: a failing write (a full disk) must not throw there.
    let logFailure: unknown;
    const log = (text: string): void => {
      opts.onLog?.(text);
      if (!opts.logFile || logFailure !== undefined) return;
      try {
        fs.appendFileSync(opts.logFile, text);
      } catch (e) {
        logFailure = e;
      }
    };
    const checkLog = (): void => {
      if (logFailure !== undefined && isDiskFull(logFailure)) throw new DiskFullError(opts.logFile ?? '', logFailure);
    };
    const env = task.environment;
    const notes: string[] = [];
    let contextDir: string | undefined;
    let dockerfile: string | undefined;
    let composeEnv: Record<string, string> = {};
    let workdir: string | undefined;
    let source: TaskImage['source'] = 'dockerfile';
    let image = env.dockerImage;

    if (env.composeFile && fs.existsSync(taskFile(task, env.composeFile))) {
      const vars = composeVars(task, imageRepo(task.id), `tw_${task.id}`);
      let main;
      try {
        main = readComposeMain(taskFile(task, env.composeFile), vars, task.format);
      } catch (e) {
        throw new InfraError('build-failed', `${task.id}: ${env.composeFile}: ${e instanceof Error ? e.message : String(e)}`, false);
      }
      if (main.otherServices.length) {
        throw new InfraError('other', `${task.id}: ${env.composeFile} defines services beside '${main.service}' (${main.otherServices.join(', ')}); multi-container tasks are not supported yet — only a single main service runs`, false);
      }
      source = 'compose';
      composeEnv = { ...main.env };
      workdir = main.workdir;
      notes.push(...main.notes);
      if (main.build) {
        contextDir = main.build.context;
        dockerfile = path.resolve(contextDir, main.build.dockerfile);
      } else if (main.image && main.image !== imageRepo(task.id)) {
        image = main.image;
      }
    }
    if (!contextDir && env.dockerfile && fs.existsSync(taskFile(task, env.dockerfile))) {
      contextDir = taskFile(task, env.contextDir);
      dockerfile = taskFile(task, env.dockerfile);
      if (source !== 'compose') source = 'dockerfile';
    }
    for (const n of notes) log(`note: ${n}\n`);

    if (contextDir && dockerfile && task.format === 'harbor' && env.dockerImage) {
      // Harbor runs a configured docker_image as it is and builds the Dockerfile only under
      // --force-build (environments/definition.py, should_use_prebuilt_docker_image): a trial here
      // must start where Harbor's would. Taskwright never pulls, so an absent image falls back to
      // the build Harbor's --force-build would make, and says so.
      const rel = path.relative(task.dir, dockerfile) || 'Dockerfile';
      if (await this.runtime.imageExists(env.dockerImage)) {
        log(`using image ${env.dockerImage} (docker_image, present locally): Harbor runs it as it is, so ${rel} is not built (Harbor builds it only under --force-build)\n`);
        checkLog();
        return { ref: env.dockerImage, built: false, source: 'docker_image', buildSec: 0, env: composeEnv, workdir, notes };
      }
      const note = `docker_image ${env.dockerImage} is not present locally and Taskwright never pulls: building ${rel} instead, as Harbor does under --force-build`;
      notes.push(note);
      log(`note: ${note}\n`);
    }
    if (contextDir && dockerfile) {
      // A compose `build.context: ../..` or an environment folder linked elsewhere would send host files.
      assertInsideTask(task.dir, contextDir);
      assertInsideTask(task.dir, dockerfile);
      if (!fs.existsSync(dockerfile)) throw new InfraError('build-failed', `${task.id}: Dockerfile ${path.relative(task.dir, dockerfile)} does not exist`, false);
      const ctx = readBuildContext(contextDir, dockerfile, task.dir);
      const ref = `${imageRepo(task.id)}:${ctx.hash.slice(0, 16)}`;
      // A pool answers for itself: an image known only on an engine since drained must be built again.
      const known = this.runtime.knowsImage ? this.runtime.knowsImage(ref) : this.known.has(ref);
      if (known || (await this.runtime.imageExists(ref))) {
        this.known.add(ref);
        log(`image ${ref} is up to date (build context unchanged: no rebuild)\n`);
        checkLog();
        return { ref, built: false, source, buildSec: 0, env: composeEnv, workdir, notes };
      }
      log(`building ${ref} from ${path.relative(task.dir, dockerfile) || 'Dockerfile'} (${ctx.files} files in the context, network none)\n`);
      const started = Date.now();
      try {
        await this.runtime.buildImage({
          context: ctx.tar(), dockerfile: ctx.dockerfile, tag: ref,
          labels: { [LABEL]: '1', [LABEL_TASK]: task.id },
          timeoutSec: task.timeouts.buildSec, onLog: log, signal: opts.signal,
        });
      } catch (e) {
        checkLog();
        if (e instanceof InfraError && e.kind === 'build-failed') {
          throw new InfraError('build-failed', `${task.id}: the image did not build: ${e.message}`, false);
        }
        throw e;
      }
      this.known.add(ref);
      const buildSec = (Date.now() - started) / 1000;
      log(`built ${ref} in ${buildSec.toFixed(1)} s\n`);
      checkLog();
      return { ref, built: true, source, buildSec, env: composeEnv, workdir, notes };
    }
    if (image) {
      if (!(await this.runtime.imageExists(image))) {
        throw new InfraError('image-missing', `${task.id}: image '${image}' is not present locally and Taskwright never pulls; load or build it first (docker load / docker build -t ${image} …)`, false);
      }
      log(`using image ${image} (docker_image, present locally)\n`);
      checkLog();
      return { ref: image, built: false, source: 'docker_image', buildSec: 0, env: composeEnv, workdir, notes };
    }
    throw new InfraError('build-failed', `${task.id}: no environment to run: no Dockerfile, compose build or docker_image found`, false);
  }
}
