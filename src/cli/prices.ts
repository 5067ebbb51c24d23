import fs from 'node:fs';
import path from 'node:path';
import { parsePriceOverrides, type PriceOverrides } from '../core/llm/prices';
import { UsageError, type CliIo } from './command';

/** TASKWRIGHT_PRICES: a JSON object, or the path of a file holding one; a bad entry is a usage error, never a guessed price. */
export function loadPriceOverrides(io: CliIo): PriceOverrides {
  const raw = io.env.TASKWRIGHT_PRICES?.trim();
  if (!raw) return {};
  let text = raw;
  if (!raw.startsWith('{')) {
    try { text = fs.readFileSync(path.resolve(io.cwd, raw), 'utf8'); } catch (e) {
      throw new UsageError(`TASKWRIGHT_PRICES: cannot read ${raw}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  let value: unknown;
  try { value = JSON.parse(text); } catch (e) {
    throw new UsageError(`TASKWRIGHT_PRICES is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { overrides, problems } = parsePriceOverrides(value);
  if (problems.length) throw new UsageError(`TASKWRIGHT_PRICES: ${problems.join('; ')}`);
  return overrides;
}
