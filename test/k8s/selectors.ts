// Label and field selectors as list and watch take them (`?labelSelector=a=b,c in (x,y),!d`).
import { badRequest } from './status';

type Labels = Readonly<Record<string, string>> | undefined;
export type Matcher = (labels: Labels) => boolean;

/** Splits on commas outside parentheses. */
function terms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) { out.push(cur); cur = ''; } else cur += ch;
  }
  if (cur.trim() !== '' || out.length) out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function term(t: string): Matcher {
  let m = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((v) => v.trim()).filter((v) => v !== ''));
    return op === 'in' ? (l) => l?.[key] !== undefined && values.has(l[key]) : (l) => l?.[key] === undefined || !values.has(l[key]);
  }
  m = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(t);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (l) => l?.[key] !== value : (l) => l?.[key] === value;
  }
  m = /^(!?)([^\s!=()]+)$/.exec(t);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (l) => l?.[key] === undefined : (l) => l?.[key] !== undefined;
  }
  throw badRequest(`unable to parse requirement: found '${t}', expected: key, '=', '==', '!=', 'in', 'notin'`);
}

export function labelSelector(s: string | null | undefined): Matcher {
  if (!s) return () => true;
  const ms = terms(s).map(term);
  return (l) => ms.every((m) => m(l));
}

/** `{matchLabels, matchExpressions}` as NetworkPolicy and Job selectors carry them. */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

export function selectorObject(sel: LabelSelectorObject | undefined): Matcher {
  if (!sel) return () => false;
  const checks: Matcher[] = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => (l) => l?.[k] === v);
  for (const e of sel.matchExpressions ?? []) {
    const values = new Set(e.values ?? []);
    if (e.operator === 'In') checks.push((l) => l?.[e.key] !== undefined && values.has(l[e.key]));
    else if (e.operator === 'NotIn') checks.push((l) => l?.[e.key] === undefined || !values.has(l[e.key]));
    else if (e.operator === 'Exists') checks.push((l) => l?.[e.key] !== undefined);
    else if (e.operator === 'DoesNotExist') checks.push((l) => l?.[e.key] === undefined);
  }
  return (l) => checks.every((c) => c(l));
}

/** Field selectors: the fields the API supports for every object plus the pod fields asked for here. */
export function fieldSelector(s: string | null | undefined, fields: (obj: unknown) => Readonly<Record<string, string>>): (obj: unknown) => boolean {
  if (!s) return () => true;
  const checks = terms(s).map((t) => {
    const m = /^([^!=]+)(==|=|!=)(.*)$/.exec(t);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${t}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    return (obj: unknown): boolean => {
      const f = fields(obj);
      if (!(field in f)) throw badRequest(`field label not supported: ${field}`);
      return op === '!=' ? f[field] !== value : f[field] === value;
    };
  });
  return (obj) => checks.every((c) => c(obj));
}
