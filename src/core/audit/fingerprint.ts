import { createHash } from 'node:crypto';
import type { Finding, Severity } from '../model/finding';

/**
 * A finding with the fingerprint of the line it points at: the first 16 hex digits of the SHA-256 of
 * the line's text, trimmed (the same `fp` as the accuracy labels in bench/accuracy). Baselines and
 * dataset conventions match on rule + file + fp, so a finding keeps its identity when lines above it
 * move. File- and task-level findings fingerprint the empty string: they match by rule and file.
 */
export interface FingerprintedFinding extends Finding {
  readonly fp: string;
}

const EMPTY_FP = lineFingerprint('');

export function lineFingerprint(lineText: string): string {
  return createHash('sha256').update(lineText.trim()).digest('hex').slice(0, 16);
}

/** The text of 0-based `line` in `text` (without its line break), or '' past the end. */
export function lineOf(text: string, line: number): string {
  let start = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return '';
    start = nl + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
}

/** Adds `fp` to each finding; `textOf` gives a task file's text as audited (undefined when unread). */
export function fingerprint(findings: readonly Finding[], textOf: (file: string) => string | undefined): FingerprintedFinding[] {
  return findings.map((f) => {
    const text = f.file && f.range ? textOf(f.file) : undefined;
    return { ...f, fp: text === undefined || !f.range ? EMPTY_FP : lineFingerprint(lineOf(text, f.range.start.line)) };
  });
}

/**
 * A finding reduced to what survives edits elsewhere in its file: rule, file and the line text's
 * fingerprint, plus what people read. Baselines and dataset conventions both key findings this way.
 */
export interface LineKeyedFinding {
  readonly rule: string;
  readonly file: string;
  readonly fp: string;
  readonly severity: Severity;
  readonly message: string;
  /** 1-based line, or null for a file- or task-level finding; not compared. */
  readonly line: number | null;
}
