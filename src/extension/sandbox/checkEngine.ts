import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runtimeFor } from '../../core/sandbox/connect';
import { EngineAddressError, parseEngineAddresses } from '../../core/sandbox/engines';
import { baseImagesOf, checkEngines, checkProblems, type CheckedRuntime, type EngineCheck } from '../../core/sandbox/engineCheck';
import { DockerodeRuntime } from '../../core/sandbox/dockerRuntime';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';

export const CHECK_ENGINE_COMMAND = 'taskwright.engine.check';

/** The engines of `taskwright.sandbox.engines` (each on its own), or the environment's one engine. */
function engineRuntimes(): CheckedRuntime[] {
  const list = vscode.workspace.getConfiguration('taskwright').get<unknown>('sandbox.engines');
  const addresses = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  if (!addresses.length) return [new DockerodeRuntime()];
  try {
    return parseEngineAddresses(addresses).map(runtimeFor);
  } catch (e) {
    if (e instanceof EngineAddressError) throw new Error(`taskwright.sandbox.engines: ${e.message}`);
    throw e;
  }
}

export interface EngineCheckResult {
  readonly engines: readonly EngineCheck[];
  /** What is missing, one line each; empty when every engine answers and holds every base image. */
  readonly problems: readonly string[];
}

/**
 * Taskwright: Check Docker Engine and Base Images — whether each configured engine answers and holds
 * the images the workspace's tasks start FROM, and if not, what is missing and how to get it. Only
 * asks the engine (ping, image inspect): it builds and runs nothing, so it works in any workspace.
 */
export const checkEngineCommand: CommandSpec = {
  id: CHECK_ENGINE_COMMAND,
  async run(ctx: Ctx): Promise<EngineCheckResult> {
    const dockerfiles: { task: string; text: string }[] = [];
    for (const t of ctx.tasks.all()) {
      if (!t.environment.dockerfile) continue;
      try {
        dockerfiles.push({ task: t.id, text: await readFile(path.join(t.dir, ...t.environment.dockerfile.split('/')), 'utf8') });
      } catch {
        // A Dockerfile that is not there is the audit's finding (missing-environment), not the engine's.
      }
    }
    const images = baseImagesOf(dockerfiles);
    const engines = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Taskwright: checking Docker Engine and base images' },
      () => checkEngines(engineRuntimes(), images));
    const problems = checkProblems(engines);
    for (const e of engines) {
      ctx.log.info(`engine check: ${e.endpoint}: ${e.reachable ? `answers; ${e.images.filter((i) => i.present).length}/${e.images.length} base image(s) present` : `does not answer (${e.error ?? ''})`}`);
      for (const i of e.images) ctx.log.info(`engine check:   ${i.present ? 'present' : 'MISSING'} ${i.image} (${i.tasks.join(', ')})`);
    }
    if (problems.length) {
      const showLog = 'Show Log';
      void vscode.window.showWarningMessage(`Taskwright: ${problems.join(' ')}`, showLog).then((c) => { if (c === showLog) ctx.log.show(true); });
    } else {
      void vscode.window.showInformationMessage(`Taskwright: Docker Engine answers (${engines.map((e) => e.endpoint).join(', ')}) and holds all ${images.size} base image(s) the tasks start FROM.`);
    }
    return { engines, problems };
  },
};
