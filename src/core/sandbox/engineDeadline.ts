import { InfraError } from './runtime';

/**
 * Seconds any single engine call may take before the engine is taken as frozen
 * (`TASKWRIGHT_ENGINE_TIMEOUT_SEC`, default 60). Long work (builds, a command's output stream) is
 * bounded by its own timeouts plus a health ping at this period.
 */
export function engineTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.TASKWRIGHT_ENGINE_TIMEOUT_SEC);
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 60_000;
}

/**
 * Runs one engine call with a deadline: the request is aborted and an `engine-timeout` InfraError
 * thrown when the engine does not answer in time (a frozen daemon accepts connections and says nothing).
 */
export async function withDeadline<T>(endpoint: string, what: string, ms: number, call: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const ctl = new AbortController();
  const signal = outer ? AbortSignal.any([ctl.signal, outer]) : ctl.signal;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      ctl.abort(new Error('engine timeout'));
      reject(new InfraError('engine-timeout', `Docker Engine at ${endpoint} did not answer ${what} within ${Math.round(ms / 1000)} s (frozen or overloaded)`));
    }, ms);
  });
  const work = call(signal);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
