import { parse as parseYaml } from 'yaml';

/**
 * Compose files repeat byte for byte across the tasks of a dataset (the real corpus: ~1,500 of them,
 * a few dozen distinct texts), and the audit reads each task's compose file more than once (bind
 * mounts for the rules, the main service for the containment check). Parsing YAML is the costly
 * part, so plain YAML documents are parsed once per distinct text and shared.
 *
 * The result is shared between callers: treat it as read-only (every caller here only reads it).
 */
const LIMIT = 64;
/** Texts longer than this are parsed every time: a cache for small config files, not for data. */
const MAX_TEXT = 64 * 1024;
const cache = new Map<string, unknown>();

/** `yaml`'s `parse(text)`, cached by content; throws as it does (failures are not cached). */
export function parseYamlShared(text: string): unknown {
  if (text.length > MAX_TEXT) return parseYaml(text);
  if (cache.has(text)) {
    const hit = cache.get(text);
    // Most recently used last: the oldest entry is evicted first.
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const doc: unknown = parseYaml(text);
  cache.set(text, doc);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value as string);
  return doc;
}
