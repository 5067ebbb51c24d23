import type Docker from 'dockerode';
import { InfraError } from './runtime';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

interface LoadEvent {
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * `docker save REF | docker -H TARGET load`, streamed engine to engine (the archive never lands on
 * this machine's disk). A transfer is bounded by progress, not total time: each chunk re-arms the
 * stall timer, so a frozen engine on either side ends it as an `engine-timeout`. The loaded image
 * keeps its id and labels, so a content-hash tag means the same bytes on every engine.
 */
export async function copyImage(from: Docker, to: Docker, ref: string, o: { stallMs: number; from: string; to: string; signal?: AbortSignal }): Promise<void> {
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort(new InfraError('other', 'cancelled', false));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let stalled: InfraError | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = new InfraError('engine-timeout', `copying image ${ref} from ${o.from} to ${o.to} made no progress for ${Math.round(o.stallMs / 1000)} s`);
      ctl.abort(stalled);
    }, o.stallMs);
  };
  arm();
  let source: NodeJS.ReadableStream | undefined;
  try {
    source = await from.getImage(ref).get();
    source.on('data', arm);
    ctl.signal.addEventListener('abort', () => (source as unknown as { destroy?: () => void }).destroy?.(), { once: true });
    const out = await to.loadImage(source, { quiet: true, abortSignal: ctl.signal } as unknown as Record<string, unknown>);
    let failure: string | undefined;
    await new Promise<void>((resolve, reject) => {
      to.modem.followProgress(out, (err: Error | null) => (err ? reject(err) : resolve()), (ev: LoadEvent) => {
        if (ev.error || ev.errorDetail) failure = ev.errorDetail?.message ?? ev.error;
      });
    });
    if (failure !== undefined) throw new InfraError('image-missing', `loading image ${ref} into ${o.to}: ${failure}`);
  } catch (e) {
    if (stalled) throw stalled;
    if (ctl.signal.aborted && o.signal?.aborted) throw new InfraError('other', `copying image ${ref} was cancelled`, false);
    if (e instanceof InfraError) throw e;
    const code = (e as { statusCode?: unknown } | null)?.statusCode;
    if (code === 404) throw new InfraError('image-missing', `image ${ref} is not on ${o.from}: ${message(e)}`);
    // Which side failed, if either stopped answering, is for the pool to find out (it pings both).
    throw new InfraError('other', `copying image ${ref} from ${o.from} to ${o.to}: ${message(e)}`);
  } finally {
    clearTimeout(timer);
    source?.removeListener('data', arm);
    o.signal?.removeEventListener('abort', onAbort);
  }
}
