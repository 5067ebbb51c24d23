import * as vscode from 'vscode';
import { BACKENDS, connectBackend, type Backend, type Engines } from '../../core/sandbox/connect';
import { EngineAddressError } from '../../core/sandbox/engines';
import { KubernetesSetupError } from '../../core/sandbox/kubernetes/connect';
import { InfraError } from '../../core/sandbox/runtime';

/** `taskwright.sandbox.backend`: docker unless set to kubernetes. */
export function backendSetting(): Backend {
  const v = vscode.workspace.getConfiguration('taskwright').get<unknown>('sandbox.backend');
  return typeof v === 'string' && (BACKENDS as readonly string[]).includes(v) ? (v as Backend) : 'docker';
}

function stringSetting(key: string): string | undefined {
  const v = vscode.workspace.getConfiguration('taskwright').get<unknown>(key);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The engines of one editor command: the cluster when `taskwright.sandbox.backend` is kubernetes,
 * else `taskwright.sandbox.engines` (empty: the one engine of the environment). Made afresh per
 * command, so an engine drained in one run is tried again in the next.
 */
export function enginesFromSettings(concurrency: number, log: (line: string) => void): Engines {
  const list = vscode.workspace.getConfiguration('taskwright').get<unknown>('sandbox.engines');
  const addresses = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  const backend = backendSetting();
  const namespace = stringSetting('sandbox.namespace');
  let warned = false;
  try {
    return connectBackend({
      backend, engines: addresses, concurrency, env: process.env, registry: stringSetting('sandbox.registry') ?? process.env.TASKWRIGHT_REGISTRY,
      ...(namespace ? { namespace } : {}),
      onDrain: (endpoint, reason) => log(`engine ${endpoint} stopped answering and was drained (${reason}); its trials are redone on the others`),
      onWarning: (text) => { if (!warned) log(text); warned = true; },
    });
  } catch (e) {
    if (e instanceof EngineAddressError) throw new Error(`taskwright.sandbox.engines: ${e.message}`);
    if (e instanceof KubernetesSetupError || (e instanceof InfraError && backend === 'kubernetes')) throw new Error(`taskwright.sandbox.backend kubernetes: ${e.message}`);
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
