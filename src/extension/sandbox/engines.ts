import * as vscode from 'vscode';
import { connectEngines, type Engines } from '../../core/sandbox/connect';
import { EngineAddressError } from '../../core/sandbox/engines';

/**
 * The engines of one editor command, from `taskwright.sandbox.engines` (empty: the one engine of the
 * environment). Made afresh per command, so an engine drained in one run is tried again in the next.
 */
export function enginesFromSettings(concurrency: number, log: (line: string) => void): Engines {
  const list = vscode.workspace.getConfiguration('taskwright').get<unknown>('sandbox.engines');
  const addresses = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  try {
    return connectEngines(addresses, concurrency, process.env, (endpoint, reason) => {
      log(`engine ${endpoint} stopped answering and was drained (${reason}); its trials are redone on the others`);
    });
  } catch (e) {
    if (e instanceof EngineAddressError) throw new Error(`taskwright.sandbox.engines: ${e.message}`);
    throw e;
  }
}

/** After a pooled command: where its trials ran, and what a drained engine may still hold. */
export async function reportEngines(engines: Engines, log: (line: string) => void): Promise<void> {
  const pool = engines.pool;
  if (!pool) return;
  const swept = await pool.sweepStranded();
  pool.close();
  for (const s of pool.stats()) log(`engine ${s.endpoint}: ${s.started} trial(s), ${s.slots} slot(s)${s.drained ? `, drained (${s.drained})` : ''}`);
  if (swept.left || swept.imagesLeft) log(`${swept.left} container(s) and ${swept.imagesLeft} snapshot image(s) may remain on a drained engine; the next run's reaper removes the containers once it answers`);
}
