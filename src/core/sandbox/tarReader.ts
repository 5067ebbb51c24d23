/**
 * Reads a tar stream (ustar and GNU long names, as the engine's archive API returns them) entry by
 * entry without holding it: each regular file's bytes go to the sink the caller returns for it, so
 * a verifier that writes gigabytes into its log folder costs no memory.
 */
export interface TarFileSink {
  write(chunk: Buffer): void;
  end(): void;
}

export type TarFileHandler = (name: string, size: number) => TarFileSink | undefined;

function field(h: Buffer, a: number, n: number): string {
  return h.subarray(a, a + n).toString('utf8').replace(/\0.*$/s, '');
}

export async function readTarStream(stream: AsyncIterable<Buffer | string>, onFile: TarFileHandler): Promise<void> {
  let pending: Buffer = Buffer.alloc(0);
  /** Bytes of the current entry's data still to come, then its padding. */
  let dataLeft = 0;
  let padLeft = 0;
  let sink: TarFileSink | undefined;
  let longName: Buffer[] | undefined;
  let collectingLong = false;
  let nextName: string | undefined;
  let ended = false;

  const headerOf = (h: Buffer): void => {
    if (h.every((b) => b === 0)) { ended = true; return; }
    const size = parseInt(field(h, 124, 12).trim() || '0', 8) || 0;
    const type = field(h, 156, 1) || '0';
    const prefix = field(h, 345, 155);
    const name = nextName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    nextName = undefined;
    dataLeft = size;
    padLeft = (512 - (size % 512)) % 512;
    collectingLong = type === 'L';
    longName = collectingLong ? [] : undefined;
    sink = type === '0' || type === '\0' ? onFile(name, size) : undefined;
    if (dataLeft === 0) finishEntry();
  };
  const finishEntry = (): void => {
    sink?.end();
    sink = undefined;
    if (collectingLong && longName) nextName = Buffer.concat(longName).toString('utf8').replace(/\0.*$/s, '');
    collectingLong = false;
    longName = undefined;
  };

  for await (const raw of stream) {
    if (ended) continue;
    let chunk: Buffer = typeof raw === 'string' ? Buffer.from(raw) : raw;
    while (chunk.length && !ended) {
      if (dataLeft > 0) {
        const take = chunk.subarray(0, Math.min(dataLeft, chunk.length));
        if (collectingLong) longName?.push(Buffer.from(take));
        else sink?.write(take);
        dataLeft -= take.length;
        chunk = chunk.subarray(take.length);
        if (dataLeft === 0) finishEntry();
        continue;
      }
      if (padLeft > 0) {
        const skip = Math.min(padLeft, chunk.length);
        padLeft -= skip;
        chunk = chunk.subarray(skip);
        continue;
      }
      const need = 512 - pending.length;
      pending = Buffer.concat([pending, chunk.subarray(0, need)]);
      chunk = chunk.subarray(need);
      if (pending.length === 512) {
        const h = pending;
        pending = Buffer.alloc(0);
        headerOf(h);
      }
    }
  }
  sink?.end();
}

/** A sink keeping at most `limit` bytes in memory (and whether more came). */
export class CappedBytes implements TarFileSink {
  private parts: Buffer[] = [];
  private kept = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  write(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room <= 0) { this.truncated = true; return; }
    const take = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (take.length < chunk.length) this.truncated = true;
    this.parts.push(Buffer.from(take));
    this.kept += take.length;
  }
  end(): void { /* nothing to release */ }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}
