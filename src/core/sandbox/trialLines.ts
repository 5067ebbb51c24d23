/** A partial line longer than this is passed on (with a line end) rather than held back for ever. */
const MAX_PARTIAL = 64 * 1024;

/**
 * The live output of one trial as whole lines, each prefixed with the trial's id: concurrent trials
 * write to one log, and a chunk boundary must neither split a line nor leave it without its trial.
 * `flush` passes on what is left of an unfinished last line when the trial ends.
 */
export class TrialLines {
  private partial = '';

  constructor(private readonly prefix: string, private readonly sink: (text: string) => void) {}

  readonly write = (text: string): void => {
    const s = this.partial + text;
    const cut = s.lastIndexOf('\n');
    if (cut < 0) {
      this.partial = s;
      if (s.length > MAX_PARTIAL) this.flush();
      return;
    }
    this.partial = s.slice(cut + 1);
    this.sink(`${s.slice(0, cut).split('\n').map((l) => `${this.prefix}${l}`).join('\n')}\n`);
    if (this.partial.length > MAX_PARTIAL) this.flush();
  };

  /** A line of its own: what is left of an unfinished line is passed on first, ended. */
  readonly line = (text: string): void => {
    this.flush();
    this.write(text.endsWith('\n') ? text : `${text}\n`);
  };

  flush(): void {
    if (!this.partial) return;
    const rest = this.partial;
    this.partial = '';
    this.sink(`${this.prefix}${rest}\n`);
  }
}
