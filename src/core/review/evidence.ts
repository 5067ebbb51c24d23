import { range, type Range } from '../model/positions';

/** What the model cites for a failed criterion: a file of the task, a line range (1-based) and the quoted text. */
export interface Evidence {
  readonly file: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly quote: string;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * Where the quote really is: inside the cited lines (±1 line of slack for an off-by-one), compared
 * with runs of whitespace collapsed. Undefined when the text is not there — the claim is then
 * unsupported and dropped, so no finding ever points at text that does not exist.
 */
export function locateQuote(text: string, e: Evidence): Range | undefined {
  const quote = squash(e.quote);
  if (!quote || !Number.isInteger(e.startLine) || !Number.isInteger(e.endLine) || e.startLine < 1 || e.endLine < e.startLine) return undefined;
  const lines = text.split('\n');
  const from = Math.max(0, e.startLine - 2);
  const to = Math.min(lines.length - 1, e.endLine);
  if (from > to) return undefined;
  // The smallest window of whole lines holding the quote, so the range maps back to real positions.
  for (let last = from; last <= to; last++) {
    for (let first = last; first >= from; first--) {
      const flat = squash(lines.slice(first, last + 1).join('\n'));
      if (!flat.includes(quote)) {
        if (flat.length > quote.length + 400) break;
        continue;
      }
      const words = quote.split(' ');
      const firstWord = words[0]!;
      const lastWord = words[words.length - 1]!;
      const startChar = Math.max(0, lines[first]!.indexOf(firstWord));
      const endIdx = lines[last]!.lastIndexOf(lastWord);
      const endChar = endIdx >= 0 ? endIdx + lastWord.length : lines[last]!.length;
      return range(first, startChar, last, endChar);
    }
  }
  return undefined;
}
