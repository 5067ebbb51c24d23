import { fromLines } from '../audit/pythonImage';
import type { ContainerRuntime } from './runtime';

/** The images the tasks' Dockerfiles start FROM (not their own stages, `scratch` or build arguments), with the tasks. */
export function baseImagesOf(dockerfiles: readonly { readonly task: string; readonly text: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { task, text } of dockerfiles) {
    const froms = fromLines(text);
    const stages = new Set(froms.flatMap((f) => (f.stage ? [f.stage.toLowerCase()] : [])));
    for (const f of froms) {
      if (!f.image || f.image.includes('$') || f.image.toLowerCase() === 'scratch' || stages.has(f.image.toLowerCase())) continue;
      const list = out.get(f.image) ?? [];
      if (!list.includes(task)) list.push(task);
      out.set(f.image, list);
    }
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

export interface ImageCheck {
  readonly image: string;
  readonly present: boolean;
  readonly tasks: readonly string[];
}

export interface EngineCheck {
  readonly endpoint: string;
  readonly reachable: boolean;
  readonly error?: string;
  /** Empty when the engine is not reachable (nothing could be asked). */
  readonly images: readonly ImageCheck[];
}

export type CheckedRuntime = Pick<ContainerRuntime, 'ping' | 'imageExists'> & { readonly endpoint: string };

/** Asks each engine whether it answers and holds each base image (`timeoutMs` per engine for the ping). */
export async function checkEngines(runtimes: readonly CheckedRuntime[], images: ReadonlyMap<string, readonly string[]>, timeoutMs = 5000): Promise<EngineCheck[]> {
  return Promise.all(runtimes.map(async (r): Promise<EngineCheck> => {
    try {
      await r.ping(AbortSignal.timeout(timeoutMs));
    } catch (e) {
      return { endpoint: r.endpoint, reachable: false, error: e instanceof Error ? e.message : String(e), images: [] };
    }
    const checked: ImageCheck[] = [];
    for (const [image, tasks] of images) checked.push({ image, present: await r.imageExists(image), tasks });
    return { endpoint: r.endpoint, reachable: true, images: checked };
  }));
}

/** One line per problem (nothing when all is well), each saying what is missing and how to get it. */
export function checkProblems(results: readonly EngineCheck[]): string[] {
  const lines: string[] = [];
  for (const r of results) {
    if (!r.reachable) {
      lines.push(`Docker Engine at ${r.endpoint} does not answer (${r.error ?? 'no reply'}): start it (Docker Desktop, \`sudo systemctl start docker\`, or this repository's \`bash scripts/docker-engine.sh\`) or set taskwright.sandbox.engines / DOCKER_HOST.`);
      continue;
    }
    const missing = r.images.filter((i) => !i.present);
    if (!missing.length) continue;
    const list = missing.map((i) => `${i.image} (${i.tasks.length} task${i.tasks.length === 1 ? '' : 's'}: ${i.tasks.slice(0, 3).join(', ')}${i.tasks.length > 3 ? ', …' : ''})`).join('; ');
    lines.push(`${r.endpoint} lacks ${missing.length} base image(s): ${list}. Pull them (\`docker pull ${missing[0]?.image ?? ''}\`) or, offline, build the local stand-ins with \`bash scripts/base-images.sh\`; a build without them fails or goes to the network.`);
  }
  return lines;
}
