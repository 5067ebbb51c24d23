import { connectEngines, type Engines } from '../core/sandbox/connect';
import { EngineAddressError } from '../core/sandbox/engines';
import { UsageError, type CliIo, type ParsedArgs } from './command';

/** `--engine URL` as given (repeatable). */
export function engineArgs(args: ParsedArgs): string[] {
  const v = args.values.engine;
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === 'string');
}

/** The engine or pool of engines for `run` / `validate`; a bad address is a usage error. */
export function enginesOf(args: ParsedArgs, io: CliIo, concurrency: number): Engines {
  try {
    return connectEngines(engineArgs(args), concurrency, io.env, (endpoint, reason) => {
      io.err(`taskwright: engine ${endpoint} stopped answering and was drained (${reason}); its trials are redone on the others`);
    });
  } catch (e) {
    if (e instanceof EngineAddressError) throw new UsageError(`--engine: ${e.message}`);
    throw e;
  }
}

/** After a pooled run: where the trials ran, and the containers a drained engine may still hold, removed if it is back. */
export async function finishEngines(engines: Engines, io: CliIo): Promise<void> {
  const pool = engines.pool;
  if (!pool) return;
  const swept = await pool.sweepStranded();
  pool.close();
  for (const s of pool.stats()) {
    io.err(`taskwright: engine ${s.endpoint}: ${s.started} trial(s), ${s.slots} slot(s)${s.drained ? `, drained (${s.drained})` : ''}`);
  }
  if (swept.removed) io.err(`taskwright: removed ${swept.removed} container(s) left on an engine that answers again`);
  if (swept.left || swept.imagesLeft) io.err(`taskwright: ${swept.left} container(s) and ${swept.imagesLeft} snapshot image(s) may remain on a drained engine; the next run's reaper removes the containers once it answers`);
}
