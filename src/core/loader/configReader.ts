import type { Range } from '../model/positions';
import type { FieldSource } from '../model/task';
import type { ProblemSink } from './problems';
import { isRecord, valueAt, type SourceMap } from './sourceMap';

/**
 * Typed, checked reads of one parsed config file. A value of the wrong type is reported
 * (`config-invalid-value` at the value's range) and read as absent, so defaults apply.
 */
export class ConfigReader {
  constructor(
    readonly file: string,
    readonly data: unknown,
    readonly sources: SourceMap,
    private readonly problems: ProblemSink,
  ) {}

  has(path: string): boolean {
    return valueAt(this.data, path) !== undefined;
  }

  raw(path: string): unknown {
    return valueAt(this.data, path);
  }

  valueRange(path: string): Range | undefined {
    return this.sources.get(path)?.valueRange;
  }

  keyRange(path: string): Range | undefined {
    const s = this.sources.get(path);
    return s?.keyRange ?? s?.valueRange;
  }

  invalid(path: string, expected: string, severity: 'error' | 'warning' = 'error'): void {
    const v = this.raw(path);
    this.problems.add('config-invalid-value', this.file, this.valueRange(path),
      `'${path}' in ${this.file} must be ${expected} (got ${describe(v)})`, severity);
  }

  /** A string; YAML/TOML `null` counts as absent. */
  string(path: string): string | undefined {
    const v = this.raw(path);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.invalid(path, 'a string');
    return undefined;
  }

  /** Harbor accepts a user name or a numeric uid. */
  stringOrInt(path: string): string | undefined {
    const v = this.raw(path);
    if (typeof v === 'number' && Number.isInteger(v)) return String(v);
    if (typeof v === 'bigint') return String(v);
    return this.string(path);
  }

  number(path: string, opts: { integer?: boolean; min?: number; positive?: boolean } = {}): number | undefined {
    let v = this.raw(path);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'bigint') v = Number(v);
    const kind = opts.integer ? 'a whole number' : 'a number';
    if (typeof v !== 'number' || Number.isNaN(v)) { this.invalid(path, kind); return undefined; }
    if (opts.integer && !Number.isInteger(v)) { this.invalid(path, kind); return undefined; }
    if (opts.positive && !(v > 0)) { this.invalid(path, `${kind} greater than 0`); return undefined; }
    if (opts.min !== undefined && v < opts.min) { this.invalid(path, `${kind} of at least ${opts.min}`); return undefined; }
    if (!Number.isFinite(v)) { this.invalid(path, `a finite ${kind.replace(/^a /, '')}`); return undefined; }
    return v;
  }

  boolean(path: string): boolean | undefined {
    const v = this.raw(path);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.invalid(path, 'true or false');
    return undefined;
  }

  /** A list of strings; entries of another type are reported one by one and dropped. */
  stringList(path: string): string[] | undefined {
    const v = this.raw(path);
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) { this.invalid(path, 'a list of strings'); return undefined; }
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item === 'string') out.push(item);
      else this.invalid(`${path}.${i}`, 'a string');
    });
    return out;
  }

  /** A table of string values (environment variables). */
  stringMap(path: string): Record<string, string> | undefined {
    const v = this.raw(path);
    if (v === undefined || v === null) return undefined;
    if (!isRecord(v)) { this.invalid(path, 'a table of strings'); return undefined; }
    const out: Record<string, string> = {};
    for (const [k, item] of Object.entries(v)) {
      if (typeof item === 'string') out[k] = item;
      else this.invalid(`${path}.${k}`, 'a string');
    }
    return out;
  }

  /** One of `allowed`; an unknown string is a warning (the tool may be newer than us), another type an error. */
  enumValue<T extends string>(path: string, allowed: readonly T[]): T | undefined {
    const v = this.string(path);
    if (v === undefined) return undefined;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    this.invalid(path, `one of ${allowed.join(', ')}`, 'warning');
    return undefined;
  }

  /** Where every entry of this file was read: value ranges, with key ranges when the entry has a key. */
  fieldSources(): Record<string, FieldSource> {
    const out: Record<string, FieldSource> = {};
    for (const [p, s] of this.sources) out[p] = { file: this.file, range: s.valueRange, ...(s.keyRange ? { keyRange: s.keyRange } : {}) };
    return out;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Date) return 'a date';
  if (isRecord(v)) return 'a table';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return `${typeof v} ${String(v)}`;
}
