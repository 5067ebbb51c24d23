import fs from 'node:fs';
import path from 'node:path';
import { parsePytestSummary } from '../sandbox/pytestSummary';
import type { LogView, OutputPart, VerifierView } from './model';

/** Bytes of a log kept from each end: a viewer message stays small even for a 100 MB build log. */
export const LOG_EDGE_BYTES = 64 * 1024;

/** The cut the terminal agent writes into an observation (src/core/agents/observation.ts). */
const AGENT_CUT = /\n?\[… \d+ bytes of output cut: [^\]\n]*…\]\n?/g;

/** Splits a recorded output at the agent's own cut markers, so the viewer can show each cut as a cut. */
export function splitCuts(text: string): OutputPart[] {
  const parts: OutputPart[] = [];
  let last = 0;
  for (const m of text.matchAll(AGENT_CUT)) {
    const at = m.index ?? 0;
    if (at > last) parts.push({ kind: 'text', text: text.slice(last, at) });
    parts.push({ kind: 'cut', note: m[0].trim().replace(/^\[|\]$/g, '') });
    last = at + m[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}

/** A path inside `root` (a record or an ATIF file names files; one that points outside is not read). */
export function inside(root: string, rel: string): string | undefined {
  const p = path.resolve(root, rel);
  return p === root || p.startsWith(root + path.sep) ? p : undefined;
}

/** Reads a log file, its head and tail when it is larger than twice `edge`; undefined when absent. */
export function readLog(root: string, rel: string, edge = LOG_EDGE_BYTES): LogView | undefined {
  const file = inside(root, rel);
  if (!file) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= 2 * edge) {
      const buf = Buffer.alloc(size);
      fs.readSync(fd, buf, 0, size, 0);
      return { file: rel, parts: splitCuts(buf.toString('utf8')), bytes: size };
    }
    const head = Buffer.alloc(edge);
    const tail = Buffer.alloc(edge);
    fs.readSync(fd, head, 0, edge, 0);
    fs.readSync(fd, tail, 0, edge, size - edge);
    const parts: OutputPart[] = [
      { kind: 'text', text: head.toString('utf8') },
      { kind: 'cut', note: `${size - 2 * edge} bytes not shown: the first and last ${edge} of ${size}` },
      { kind: 'text', text: tail.toString('utf8') },
    ];
    return { file: rel, parts, bytes: size };
  } finally {
    fs.closeSync(fd);
  }
}

/** A small text file (a reward, a verdict), or undefined. */
export function readSmall(root: string, rel: string, max = 4096): string | undefined {
  const log = readLog(root, rel, max);
  return log ? textOf(log) : undefined;
}

/** A log's text with its cuts as one line each. */
export function textOf(log: LogView): string {
  return log.parts.map((p) => (p.kind === 'text' ? p.text : `\n[${p.note}]\n`)).join('');
}

/**
 * The verifier's output with its failing tests picked out of `pytest -rA`'s summary (the same parser
 * as TB1's verdict: FAILED, ERROR and XPASS fail). Undefined when the verifier left no output.
 */
export function readVerifier(root: string, stdoutFile: string, stderrFile: string | undefined, verdictFile?: string): VerifierView | undefined {
  const stdout = readLog(root, stdoutFile);
  const stderr = stderrFile ? readLog(root, stderrFile) : undefined;
  const verdict = verdictFile ? readSmall(root, verdictFile) : undefined;
  if (!stdout && !stderr && verdict === undefined) return undefined;
  const summary = parsePytestSummary([stdout, stderr].map((l) => (l ? textOf(l) : '')).join('\n'));
  // TB1's parser drops the " - reason" of FAILED lines only; ERROR lines carry one too.
  const tests = summary.tests.map((t) => (t.status === 'FAILED' ? t : { ...t, name: t.name.replace(/ - .*$/, '') }));
  const failing = tests.filter((t) => t.status === 'FAILED' || t.status === 'ERROR' || t.status === 'XPASS').map((t) => t.name);
  return {
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    tests,
    failing,
    ...(verdict !== undefined ? { verdict: verdict.trim() } : {}),
  };
}

/** A JSON file as `unknown` (the caller checks its shape), undefined when absent or not JSON. */
export function readJson(root: string, rel: string, max = 32 * 1024 * 1024): unknown {
  const file = inside(root, rel);
  if (!file) return undefined;
  try {
    if (fs.statSync(file).size > max) return undefined;
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
