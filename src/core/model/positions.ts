/** Positions are 0-based (as in LSP, tree-sitter and dockerfile-ast); the CLI prints them 1-based. */
export interface Position {
  readonly line: number;
  readonly character: number;
}

export interface Range {
  readonly start: Position;
  readonly end: Position;
}

export function range(startLine: number, startChar: number, endLine: number, endChar: number): Range {
  return { start: { line: startLine, character: startChar }, end: { line: endLine, character: endChar } };
}

/** Maps string offsets to positions; built once per file text. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - (this.starts[lo] ?? 0) };
  }

  rangeOf(startOffset: number, endOffset: number): Range {
    return { start: this.positionAt(startOffset), end: this.positionAt(endOffset) };
  }

  offsetAt(pos: Position): number {
    const start = this.starts[pos.line];
    if (start === undefined) return this.text.length;
    return Math.min(start + pos.character, this.text.length);
  }

  lineCount(): number {
    return this.starts.length;
  }

  /** Range covering the whole of line `line` (without its newline). */
  lineRange(line: number): Range {
    const start = this.starts[line] ?? this.text.length;
    const next = this.starts[line + 1];
    const end = next === undefined ? this.text.length : next - 1;
    return this.rangeOf(start, end);
  }
}
