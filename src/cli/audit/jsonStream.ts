/** Buffered output: chunks go to `out` in pieces of ~64 KiB that end at a line break. */
export class Sink {
  private buf: string[] = [];
  private size = 0;

  constructor(private readonly out: (text: string) => void) {}

  write(s: string): void {
    this.buf.push(s);
    this.size += s.length;
    if (this.size >= 65536) this.flushLines();
  }

  private flushLines(): void {
    const all = this.buf.join('');
    const nl = all.lastIndexOf('\n');
    if (nl < 0) { this.buf = [all]; return; }
    this.out(all.slice(0, nl + 1));
    const rest = all.slice(nl + 1);
    this.buf = rest ? [rest] : [];
    this.size = rest.length;
  }

  /** Writes what is left (ending with a line break). */
  end(): void {
    const all = this.buf.join('');
    this.buf = [];
    this.size = 0;
    if (all) this.out(all.endsWith('\n') ? all : `${all}\n`);
  }
}

const MARK = '\u0000streamed\u0000';

/**
 * Writes `JSON.stringify(doc, null, 2)` of a document with one array whose items arrive one by one:
 * `doc` holds `STREAMED` where that array goes. The text equals the whole document's stringify, so a
 * streamed report is the report a single pass over all findings would print.
 */
export class JsonArrayStream {
  static readonly STREAMED = MARK;
  private readonly prefix: string;
  private readonly suffix: string;
  private readonly itemIndent: string;
  private readonly closeIndent: string;
  private count = 0;

  constructor(private readonly sink: Sink, doc: object) {
    const text = JSON.stringify(doc, null, 2);
    const marker = JSON.stringify(MARK);
    const at = text.indexOf(marker);
    if (at < 0) throw new Error('JsonArrayStream: the document has no STREAMED placeholder');
    this.prefix = text.slice(0, at);
    this.suffix = text.slice(at + marker.length);
    const lineStart = this.prefix.lastIndexOf('\n') + 1;
    this.closeIndent = /^ */.exec(this.prefix.slice(lineStart))?.[0] ?? '';
    this.itemIndent = `${this.closeIndent}  `;
    sink.write(`${this.prefix}[`);
  }

  item(value: unknown): void {
    const text = JSON.stringify(value, null, 2).replace(/\n/g, `\n${this.itemIndent}`);
    this.sink.write(`${this.count ? ',' : ''}\n${this.itemIndent}${text}`);
    this.count++;
  }

  /** Closes the array and writes the rest of the document. */
  end(): void {
    this.sink.write(this.count ? `\n${this.closeIndent}]` : ']');
    this.sink.write(`${this.suffix}\n`);
  }
}
