import type { ExecResult } from './agent';

/** Bytes kept from each end of a command's output before the middle is cut. */
export const OBSERVATION_EDGE_BYTES = 5000;

/**
 * Keeps the first and last `edge` bytes of an output (cut on UTF-8 character boundaries) with a note of
 * how much was cut between them, so a chatty command cannot flood the model's context.
 */
export function truncateMiddle(text: string, edge = OBSERVATION_EDGE_BYTES): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= 2 * edge) return text;
  let headEnd = edge;
  while (headEnd > 0 && (buf[headEnd]! & 0xc0) === 0x80) headEnd--;
  let tailStart = buf.length - edge;
  while (tailStart < buf.length && (buf[tailStart]! & 0xc0) === 0x80) tailStart++;
  const cut = tailStart - headEnd;
  return `${buf.subarray(0, headEnd).toString('utf8')}\n[… ${cut} bytes of output cut: showing the first ${headEnd} and the last ${buf.length - tailStart} bytes …]\n${buf.subarray(tailStart).toString('utf8')}`;
}

/** What the model sees of a command: its output (stdout then stderr), truncated, with the exit code appended. */
export function formatObservation(r: ExecResult, timeoutSec: number, edge = OBSERVATION_EDGE_BYTES): string {
  const out = r.stderr ? (r.stdout ? `${r.stdout}${r.stdout.endsWith('\n') ? '' : '\n'}${r.stderr}` : r.stderr) : r.stdout;
  const body = truncateMiddle(out, edge);
  const sep = body === '' || body.endsWith('\n') ? '' : '\n';
  const timeout = r.timedOut ? ` (timed out after ${timeoutSec} s and was killed)` : '';
  return `${body}${sep}[exit code ${r.exitCode}]${timeout}`;
}
