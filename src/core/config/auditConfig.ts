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

async function readConfig(file: string, overlay?: ReadonlyMap<string, string>): Promise<ConfigFile | undefined> {
  const over = overlay?.get(file);
  if (over !== undefined) return parseConfigText(file, over);
  let st;
  try {
    st = await fs.stat(file);
  } catch {
    return undefined;
  }
  if (!st.isFile()) return undefined;
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs) return hit.parsed;
  const parsed = parseConfigText(file, await fs.readFile(file, 'utf8'));
  cache.set(file, { mtimeMs: st.mtimeMs, parsed });
  return parsed;
}

/** Per-folder rule settings for the task in `dir`: every ancestor's config, nearest winning. */
export async function loadAuditConfig(dir: string, overlay?: ReadonlyMap<string, string>): Promise<AuditConfig> {
  const folders: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    folders.push(d);
    if (path.dirname(d) === d) break;
  }
  const found: ConfigFile[] = [];
  const perFolder = await Promise.all(folders.map((d) => Promise.all(CONFIG_FILES.map((n) => readConfig(path.join(d, n), overlay)))));
  for (const files of perFolder) for (const f of files) if (f) found.push(f);
  // `found` is nearest first; apply farthest first so nearer folders override.
  const rules: Record<string, RuleSetting> = {};
  for (const f of [...found].reverse()) Object.assign(rules, f.rules);
  return { rules, files: found };
}
