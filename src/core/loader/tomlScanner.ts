import { LineIndex } from '../model/positions';
import { joinPath, type SourceMap } from './sourceMap';

/**
 * Finds where every key and value of a TOML document sits. smol-toml yields values but no positions,
 * so this scanner walks the text once: table headers, `key = value` lines (bare, quoted and dotted
 * keys), inline tables, arrays and every string form. It never throws and always advances, so any
 * text (including broken TOML) yields the entries it can recognise.
 */
export function scanTomlPositions(text: string): SourceMap {
  return new TomlScanner(text).scan();
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const MAX_DEPTH = 32;

class TomlScanner {
  private i = 0;
  private readonly lines: LineIndex;
  private readonly out: SourceMap = new Map();
  private readonly arrayTableCounts = new Map<string, number>();

  constructor(private readonly s: string) {
    this.lines = new LineIndex(s);
  }

  scan(): SourceMap {
    let table: string[] = [];
    while (this.i < this.s.length) {
      this.skipBlankAndComments(true);
      if (this.i >= this.s.length) break;
      const start = this.i;
      if (this.s[this.i] === '[') {
        table = this.header() ?? table;
      } else {
        this.keyValue(table);
      }
      this.skipRestOfLine();
      if (this.i === start) this.i++;
    }
    return this.out;
  }

  /** `[a.b]` or `[[a.b]]`; returns the table path that following keys belong to. */
  private header(): string[] | undefined {
    const start = this.i;
    const isArray = this.s.startsWith('[[', this.i);
    this.i += isArray ? 2 : 1;
    this.skipInlineSpace();
    const key = this.key();
    if (!key) return undefined;
    this.skipInlineSpace();
    const close = isArray ? ']]' : ']';
    if (!this.s.startsWith(close, this.i)) return undefined;
    this.i += close.length;
    let path = key.segments;
    if (isArray) {
      const base = joinPath(path);
      const n = this.arrayTableCounts.get(base) ?? 0;
      this.arrayTableCounts.set(base, n + 1);
      path = [...path, String(n)];
    }
    this.record(path, key.start, key.end, start, this.i);
    return path;
  }

  /** `key = value` at the cursor, recorded under `table`; false when it is not one or its value is empty. */
  private keyValue(table: readonly string[]): boolean {
    const key = this.key();
    if (!key) return false;
    this.skipInlineSpace();
    if (this.s[this.i] !== '=') return false;
    this.i++;
    this.skipInlineSpace();
    const valueStart = this.i;
    this.value([...table, ...key.segments], key.start, key.end);
    return this.i !== valueStart;
  }

  /** Parses a value at the cursor and records it (and, for inline tables and arrays, its children). */
  private value(path: string[], keyStart: number | undefined, keyEnd: number | undefined): void {
    const start = this.i;
    const c = this.s[this.i];
    // Past a sane depth, nested arrays and tables are skipped as text (no recursion, no stack overflow).
    const deep = path.length > MAX_DEPTH;
    if (c === '"' || c === "'") this.string();
    else if (c === '[' && !deep) this.array(path);
    else if (c === '{' && !deep) this.inlineTable(path);
    else if (deep && (c === '[' || c === '{')) { this.toLineEnd(); return; }
    else this.scalar();
    if (this.i === start) return;
    this.record(path, keyStart, keyEnd, start, this.i);
  }

  private array(path: string[]): void {
    this.i++; // [
    let index = 0;
    while (this.i < this.s.length) {
      this.skipBlankAndComments(true);
      const c = this.s[this.i];
      if (c === undefined) return;
      if (c === ']') { this.i++; return; }
      if (c === ',') { this.i++; continue; }
      // A stray `=` means the array was never closed: stop so the document scan can resume.
      if (c === '=') return;
      const before = this.i;
      this.value([...path, String(index)], undefined, undefined);
      index++;
      if (this.i === before) return;
    }
  }

  private inlineTable(path: string[]): void {
    this.i++; // {
    while (this.i < this.s.length) {
      this.skipBlankAndComments(true);
      const c = this.s[this.i];
      if (c === undefined) return;
      if (c === '}') { this.i++; return; }
      if (c === ',') { this.i++; continue; }
      if (!this.keyValue(path)) return;
    }
  }

  /** Any string form, multi-line included; an unterminated string ends at its line (or the text). */
  private string(): void {
    const q = this.s[this.i] as '"' | "'";
    const triple = q.repeat(3);
    if (this.s.startsWith(triple, this.i)) {
      let j = this.i + 3;
      for (;;) {
        const k = this.s.indexOf(triple, j);
        if (k < 0) { this.i = this.s.length; return; }
        if (q === '"' && isEscaped(this.s, k)) { j = k + 1; continue; }
        let end = k + 3;
        // Up to two quotes may sit right before the closing delimiter (`""""` ends with one quote).
        while (end < this.s.length && this.s[end] === q && end - k < 5) end++;
        this.i = end;
        return;
      }
    }
    let j = this.i + 1;
    while (j < this.s.length) {
      const ch = this.s[j];
      if (ch === '\n') break;
      if (q === '"' && ch === '\\') { j += 2; continue; }
      if (ch === q) { j++; break; }
      j++;
    }
    this.i = Math.min(j, this.s.length);
  }

  /** Numbers, booleans, dates: up to a delimiter, trailing spaces excluded (dates may hold a space). */
  private scalar(): void {
    let j = this.i;
    while (j < this.s.length && !',]}#\n\r'.includes(this.s[j] as string)) j++;
    while (j > this.i && (this.s[j - 1] === ' ' || this.s[j - 1] === '\t')) j--;
    this.i = j;
  }

  /** A possibly dotted key: bare, "basic" or 'literal' parts separated by dots. */
  private key(): { segments: string[]; start: number; end: number } | undefined {
    const start = this.i;
    const segments: string[] = [];
    for (;;) {
      const part = this.keyPart();
      if (part === undefined) return segments.length ? { segments, start, end: this.i } : undefined;
      segments.push(part);
      const afterPart = this.i;
      this.skipInlineSpace();
      if (this.s[this.i] !== '.') { this.i = afterPart; return { segments, start, end: afterPart }; }
      this.i++;
      this.skipInlineSpace();
    }
  }

  private keyPart(): string | undefined {
    const c = this.s[this.i];
    if (c === '"') {
      let j = this.i + 1;
      let v = '';
      while (j < this.s.length && this.s[j] !== '"' && this.s[j] !== '\n') {
        if (this.s[j] === '\\' && j + 1 < this.s.length) {
          const e = this.s[j + 1] as string;
          v += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\' } as Record<string, string>)[e] ?? e;
          j += 2;
          continue;
        }
        v += this.s[j];
        j++;
      }
      if (this.s[j] !== '"') return undefined;
      this.i = j + 1;
      return v;
    }
    if (c === "'") {
      const k = this.s.indexOf("'", this.i + 1);
      const nl = this.s.indexOf('\n', this.i + 1);
      if (k < 0 || (nl >= 0 && nl < k)) return undefined;
      const v = this.s.slice(this.i + 1, k);
      this.i = k + 1;
      return v;
    }
    let j = this.i;
    while (j < this.s.length && BARE_KEY.test(this.s[j] as string)) j++;
    if (j === this.i) return undefined;
    const v = this.s.slice(this.i, j);
    this.i = j;
    return v;
  }

  private record(path: string[], keyStart: number | undefined, keyEnd: number | undefined, start: number, end: number): void {
    const p = joinPath(path);
    // The first definition wins: a duplicate is a parse error that smol-toml reports at its position.
    if (this.out.has(p)) return;
    this.out.set(p, {
      ...(keyStart !== undefined && keyEnd !== undefined ? { keyRange: this.lines.rangeOf(keyStart, keyEnd) } : {}),
      valueRange: this.lines.rangeOf(start, end),
    });
  }

  private skipInlineSpace(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }

  private skipBlankAndComments(newlines: boolean): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) { this.i++; continue; }
      if (c === '#') { this.toLineEnd(); continue; }
      return;
    }
  }

  /** After a statement: anything left on the line (a comment, or garbage smol-toml reports) is skipped. */
  private skipRestOfLine(): void {
    this.toLineEnd();
  }

  private toLineEnd(): void {
    const nl = this.s.indexOf('\n', this.i);
    this.i = nl < 0 ? this.s.length : nl;
  }
}

function isEscaped(s: string, quoteAt: number): boolean {
  let n = 0;
  for (let k = quoteAt - 1; k >= 0 && s[k] === '\\'; k--) n++;
  return n % 2 === 1;
}
