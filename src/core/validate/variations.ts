import type { SolvedState } from './solved';

/**
 * Environment variations the verdict must not depend on. They run in two combined groups (one
 * container each, from the solved snapshot); only a group whose verdict moved is rerun one
 * variable at a time, to name the variable. Offsets are POSIX TZ strings, so they work in images
 * without tzdata.
 */
export interface Variation {
  readonly id: string;
  readonly label: string;
  readonly group: 'a' | 'b';
  readonly env?: (s: SolvedState) => Record<string, string>;
  readonly cpus?: number;
}

const PROXY = 'http://127.0.0.1:9';

/** A non-English UTF-8 locale the image has, else C.UTF-8 (which every glibc image has). */
export function foreignLocale(locales: readonly string[]): string {
  const pick = ['de_de.utf8', 'fr_fr.utf8', 'tr_tr.utf8', 'ja_jp.utf8'].find((l) => locales.includes(l))
    ?? locales.find((l) => /utf-?8$/.test(l) && !/^(c|posix|en_)/.test(l));
  return pick ? pick.replace(/\.utf-?8$/, '.UTF-8').replace(/^(\w\w)_(\w\w)/, (_m, a: string, b: string) => `${a}_${b.toUpperCase()}`) : 'C.UTF-8';
}

export const VARIATIONS: readonly Variation[] = [
  { id: 'tz-east', label: 'TZ far east of UTC (UTC+14)', group: 'a', env: () => ({ TZ: 'TWT-14' }) },
  { id: 'lang-c', label: 'LANG=C', group: 'a', env: () => ({ LANG: 'C', LC_ALL: 'C' }) },
  { id: 'columns-narrow', label: 'a narrow terminal (COLUMNS=40)', group: 'a', env: () => ({ COLUMNS: '40', LINES: '20' }) },
  { id: 'http-proxy', label: 'http_proxy pointing at a closed local port', group: 'a', env: () => ({ http_proxy: PROXY, https_proxy: PROXY, HTTP_PROXY: PROXY, HTTPS_PROXY: PROXY }) },
  { id: 'tz-west', label: 'TZ far west of UTC (UTC-12)', group: 'b', env: () => ({ TZ: 'TWT+12' }) },
  { id: 'locale-utf8', label: 'a non-English UTF-8 locale', group: 'b', env: (s) => { const l = foreignLocale(s.locales); return { LANG: l, LC_ALL: l }; } },
  { id: 'columns-wide', label: 'a wide terminal (COLUMNS=250)', group: 'b', env: () => ({ COLUMNS: '250', LINES: '80' }) },
  { id: 'cpu-half', label: 'the CPU throttled to half a core', group: 'b', cpus: 0.5 },
];

export function variationEnv(vs: readonly Variation[], s: SolvedState): Record<string, string> {
  return Object.assign({}, ...vs.map((v) => v.env?.(s) ?? {})) as Record<string, string>;
}

export function variationLabel(v: Variation, s: SolvedState): string {
  if (v.id !== 'locale-utf8') return v.label;
  const l = foreignLocale(s.locales);
  return l === 'C.UTF-8' ? 'LANG=C.UTF-8 (the image has no non-English locale)' : `LANG=${l}`;
}
