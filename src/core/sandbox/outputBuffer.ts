/**
 * Keeps a command's output in memory within a bound: the head and the tail (where pytest prints
 * its summary), with a note of what was cut. Full output goes to the trial's log files.
 */
export class OutputBuffer {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly headLimit = 256 * 1024, private readonly tailLimit = 4 * 1024 * 1024) {}

  push(chunk: Buffer): void {
    if (this.headBytes < this.headLimit) {
      const take = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
      if (!chunk.length) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > this.tailLimit && this.tail.length > 1) {
      const first = this.tail.shift() as Buffer;
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    const cut = this.dropped ? `\n[… ${this.dropped} bytes cut …]\n` : '';
    return Buffer.concat(this.head).toString('utf8') + cut + Buffer.concat(this.tail).toString('utf8');
  }
}
