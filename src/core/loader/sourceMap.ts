import type { Range } from '../model/positions';

/**
 * Where one configuration entry sits in its file. `valueRange` covers the value's text (for a table
 * header, the whole `[header]`); `keyRange` covers the key as written (absent for sequence items).
 */
export interface SourceEntry {
  readonly keyRange?: Range;
  readonly valueRange: Range;
}

/** Every entry a config parser found, keyed by dotted path (`environment.memory_mb`, `tags.0`). */
export type SourceMap = Map<string, SourceEntry>;

export function joinPath(segments: readonly string[]): string {
  return segments.join('.');
}

/** Looks a dotted path up in parsed config data (objects by key, arrays by index). */
export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur)) {
      const i = Number(seg);
      cur = Number.isInteger(i) ? cur[i] : undefined;
    } else if (isRecord(cur)) {
      cur = Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
    } else {
      return undefined;
    }
  }
  return cur;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}
