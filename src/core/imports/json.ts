import fs from 'node:fs';

/** A JSON object as read from a foreign tool's file: fields are looked at, never trusted. */
export type JsonObject = Readonly<Record<string, unknown>>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a JSON file; undefined when missing or unreadable (a file being written, say). */
export function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function str(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function num(o: JsonObject | undefined, key: string): number | undefined {
  const v = o?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}

/** Seconds between two ISO timestamps, or null. */
export function secondsBetween(start: unknown, end: unknown): number | null {
  if (typeof start !== 'string' || typeof end !== 'string') return null;
  const a = Date.parse(start);
  const b = Date.parse(end);
  return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, (b - a) / 1000) : null;
}

export function subdirs(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

/**
 * One model name for the same model whichever harness ran it: Harbor and Terminal-Bench 1 take LiteLLM
 * ids (`anthropic/claude-…`, `openrouter/anthropic/claude-…`), and Harbor's `model_info.name` is often
 * the bare id, so the provider route is dropped everywhere — or one model shows as two in the band.
 */
export function canonicalModel(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  if (!trimmed) return undefined;
  return trimmed.includes('/') ? trimmed.slice(trimmed.lastIndexOf('/') + 1) : trimmed;
}
