import fs from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Severity } from '../model/finding';

export type RuleSetting = Severity | 'off';
export type RuleOverrides = Readonly<Record<string, RuleSetting>>;

/** Config file names, looked up in every folder from the task up to the filesystem root. */
export const CONFIG_FILES = ['taskwright.json', '.taskwright.yaml', '.taskwright.yml'] as const;

export interface ConfigFile {
  readonly file: string;
  readonly rules: RuleOverrides;
  /** Entries that were ignored, with why. */
  readonly errors: readonly string[];
}

export interface AuditConfig {
  /** Merged: a nearer folder's setting wins over a farther one's. */
  readonly rules: RuleOverrides;
  readonly files: readonly ConfigFile[];
}

const SETTINGS = new Set<string>(['off', 'error', 'warning', 'info']);

/**
 * `{"rules": {"rule-id": "off"|"info"|"warning"|"error"}}` (also accepted under an `"audit"` key),
 * in JSON or YAML.
 */
export function parseConfigText(file: string, text: string): ConfigFile {
  const errors: string[] = [];
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    return { file, rules: {}, errors: [`${file}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`] };
  }
  const root = isRecord(data) && isRecord(data['audit']) ? data['audit'] : data;
  const rulesRaw = isRecord(root) ? root['rules'] : undefined;
  const rules: Record<string, RuleSetting> = {};
  if (rulesRaw !== undefined && !isRecord(rulesRaw)) errors.push(`${file}: "rules" must be an object`);
  if (isRecord(rulesRaw)) {
    for (const [id, v] of Object.entries(rulesRaw)) {
      const s = typeof v === 'string' ? v.toLowerCase() : v === false ? 'off' : undefined;
      if (s && SETTINGS.has(s)) rules[id] = s as RuleSetting;
      else errors.push(`${file}: rule "${id}" takes off|info|warning|error (got ${JSON.stringify(v)})`);
    }
  }
  return { file, rules, errors };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const cache = new Map<string, { mtimeMs: number; parsed: ConfigFile }>();

/**
 * Looking up three names in every ancestor folder is most of the cost of auditing a small task, so
 * results are reused for a short while: an edited or new config file takes effect within STAT_TTL_MS
 * (editor buffers come through the overlay and apply at once).
 */
const STAT_TTL_MS = 3000;
const statCache = new Map<string, { at: number; mtimeMs: number | undefined }>();

async function mtimeOf(file: string): Promise<number | undefined> {
  const now = Date.now();
  const hit = statCache.get(file);
  if (hit && now - hit.at < STAT_TTL_MS) return hit.mtimeMs;
  let mtimeMs: number | undefined;
  try {
    const st = await fs.stat(file);
    mtimeMs = st.isFile() ? st.mtimeMs : undefined;
  } catch {
    mtimeMs = undefined;
  }
  if (statCache.size > 10_000) statCache.clear();
  statCache.set(file, { at: now, mtimeMs });
  return mtimeMs;
}

async function readConfig(file: string, overlay?: ReadonlyMap<string, string>): Promise<ConfigFile | undefined> {
  const over = overlay?.get(file);
  if (over !== undefined) return parseConfigText(file, over);
  const mtimeMs = await mtimeOf(file);
  if (mtimeMs === undefined) return undefined;
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.parsed;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseConfigText(file, text);
  cache.set(file, { mtimeMs, parsed });
  return parsed;
}

/** Forget cached config lookups (tests, or a file watcher that saw a config file change). */
export function clearAuditConfigCache(): void {
  statCache.clear();
  cache.clear();
}

/**
 * Per-folder rule settings for the task in `dir`: every ancestor's config, nearest winning.
 * `dirFiles` (the task's own file list, when the caller has it) saves looking up names in `dir` itself.
 */
export async function loadAuditConfig(dir: string, overlay?: ReadonlyMap<string, string>, dirFiles?: readonly string[]): Promise<AuditConfig> {
  const folders: string[] = [];
  const start = path.resolve(dir);
  for (let d = start; ; d = path.dirname(d)) {
    folders.push(d);
    if (path.dirname(d) === d) break;
  }
  const found: ConfigFile[] = [];
  const listed = dirFiles ? new Set(dirFiles) : undefined;
  const perFolder = await Promise.all(folders.map((d) => Promise.all(CONFIG_FILES.map((n) => {
    const file = path.join(d, n);
    if (d === start && listed && !listed.has(n) && overlay?.get(file) === undefined) return Promise.resolve(undefined);
    return readConfig(file, overlay);
  }))));
  for (const files of perFolder) for (const f of files) if (f) found.push(f);
  // `found` is nearest first; apply farthest first so nearer folders override.
  const rules: Record<string, RuleSetting> = {};
  for (const f of [...found].reverse()) Object.assign(rules, f.rules);
  return { rules, files: found };
}
