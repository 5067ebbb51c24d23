/**
 * Output mutants: wrong answers that keep the output's shape. Each is a change any reasonable
 * reading of an instruction forbids (a number, a field, a record, the content); reorderings are
 * only used when the instruction says order matters, and case or whitespace changes never.
 * Pure: tested on strings without an engine.
 */
export interface Mutant {
  /** Stable short kind, for counts (`json-field`, `number`, `drop-line`, …). */
  readonly kind: string;
  /** What was changed, for the finding ("changed `count` from 3 to 4"). */
  readonly description: string;
  readonly content: string;
}

export interface MutateOptions {
  /** At most this many mutants for the file. */
  readonly max: number;
  /** The instruction says order matters (sorted, ordered, in order): line swaps become wrong answers. */
  readonly orderMatters?: boolean;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function changedString(s: string): string {
  const r = [...s].reverse().join('');
  if (r !== s) return r;
  return s ? `${s}x` : 'x';
}

function changedValue(v: Json): Json | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v + 1 : Math.round((v + 1.5) * 1000) / 1000;
  if (typeof v === 'string') return changedString(v);
  if (typeof v === 'boolean') return !v;
  if (v === null) return 0;
  return undefined;
}

/** Leaf paths of a JSON value, depth-first, in document order. */
function leaves(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) leaves(v[k] as Json, [...at, k], out);
  else out.push(at);
  return out;
}

function getAt(v: Json, p: readonly (string | number)[]): Json {
  let cur: Json = v;
  for (const k of p) cur = (cur as Record<string | number, Json>)[k] as Json;
  return cur;
}

function setAt(v: Json, p: readonly (string | number)[], value: Json): Json {
  const copy = JSON.parse(JSON.stringify(v)) as Json;
  if (!p.length) return value;
  let cur = copy as Record<string | number, Json>;
  for (const k of p.slice(0, -1)) cur = cur[k] as unknown as Record<string | number, Json>;
  cur[p[p.length - 1] as string | number] = value;
  return copy;
}

const show = (v: Json): string => JSON.stringify(v).slice(0, 40);
const pathName = (p: readonly (string | number)[]): string => p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('') || '(root)';

function jsonMutants(text: string, value: Json, max: number): Mutant[] {
  const indent = /^\s*[[{]\s*\n(\s+)/.exec(text)?.[1]?.length ?? 0;
  const dump = (v: Json): string => JSON.stringify(v, null, indent || undefined) + (text.endsWith('\n') ? '\n' : '');
  const out: Mutant[] = [];
  // One leaf per distinct top-level key (or array record) first, so a check of one field of three is told apart.
  const all = leaves(value);
  const seen = new Set<string>();
  const firsts = all.filter((p) => { const k = String(p[0]); if (seen.has(k)) return false; seen.add(k); return true; });
  for (const p of [...firsts, ...all.filter((p) => !firsts.includes(p))]) {
    if (out.length >= max) break;
    const old = getAt(value, p);
    const nv = changedValue(old);
    if (nv === undefined) continue;
    out.push({ kind: 'json-field', description: `changed \`${pathName(p)}\` from ${show(old)} to ${show(nv)}`, content: dump(setAt(value, p, nv)) });
  }
  if (out.length < max && Array.isArray(value) && value.length >= 2) {
    out.push({ kind: 'drop-record', description: `dropped the last of ${value.length} records`, content: dump(value.slice(0, -1)) });
  }
  if (out.length < max) out.push({ kind: 'empty', description: 'emptied the file', content: '' });
  return out;
}

function textMutants(text: string, opts: MutateOptions): Mutant[] {
  const nl = text.endsWith('\n');
  const lines = (nl ? text.slice(0, -1) : text).split('\n');
  const join = (ls: readonly string[]): string => ls.join('\n') + (nl && ls.length ? '\n' : '');
  const data = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== '');
  const out: Mutant[] = [];
  // A number in the last data line (past any header), changed by one.
  for (const { l, i } of [...data].reverse()) {
    const m = /-?\d+(?:\.\d+)?/.exec(l);
    if (!m) continue;
    const n = m[0];
    const changed = n.includes('.') ? (Number(n) + 1).toFixed(n.split('.')[1]?.length ?? 0) : String(Number(n) + 1);
    const ls = [...lines];
    ls[i] = l.slice(0, m.index) + changed + l.slice(m.index + n.length);
    out.push({ kind: 'number', description: `changed ${n} to ${changed} on line ${i + 1}`, content: join(ls) });
    break;
  }
  const last = data[data.length - 1];
  if (data.length >= 2 && last) {
    out.push({ kind: 'drop-line', description: `dropped line ${last.i + 1} of ${lines.length} (${JSON.stringify(last.l.slice(0, 40))})`, content: join(lines.filter((_, i) => i !== last.i)) });
  }
  out.push({ kind: 'empty', description: 'emptied the file', content: '' });
  if (last) {
    const ls = [...lines];
    ls.splice(last.i + 1, 0, last.l);
    out.push({ kind: 'duplicate-line', description: `duplicated line ${last.i + 1} (${JSON.stringify(last.l.slice(0, 40))})`, content: join(ls) });
  }
  if (data.length >= 4) {
    const keep = data.slice(0, Math.ceil(data.length / 2)).map(({ i }) => i);
    out.push({ kind: 'truncate', description: `truncated to the first ${keep.length} of ${data.length} lines`, content: join(lines.filter((_, i) => i <= (keep[keep.length - 1] ?? 0))) });
  }
  if (opts.orderMatters && data.length >= 3) {
    const a = data[data.length - 2];
    if (a && last && a.l !== last.l) {
      const ls = [...lines];
      ls[a.i] = last.l;
      ls[last.i] = a.l;
      out.push({ kind: 'swap-lines', description: `swapped lines ${a.i + 1} and ${last.i + 1}`, content: join(ls) });
    }
  }
  return out.filter((m) => m.content !== text).slice(0, opts.max);
}

/** Mutants of one output file's text (JSON by value, anything else by line). */
export function mutantsOf(text: string, opts: MutateOptions): Mutant[] {
  if (opts.max <= 0 || text.trim() === '') return [];
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as Json;
      if (v !== null && typeof v === 'object') return jsonMutants(text, v, opts.max).filter((m) => m.content !== text);
    } catch {
      // Not JSON after all: mutate it as lines.
    }
  }
  return textMutants(text, opts);
}

/** Words in an instruction that make the order of lines significant. */
export function orderMatters(instruction: string): boolean {
  return /\b(sort(ed)?|order(ed)?|ascending|descending|rank(ed)?|first|top)\b/i.test(instruction);
}
