import fs from 'node:fs';
import { guardWrite } from '../results/diskFull';
import type { TarFileSink } from './tarReader';

/** Bytes a single trial log file may grow to; `TASKWRIGHT_LOG_LIMIT_MB` changes it. */
export function logLimitBytes(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.TASKWRIGHT_LOG_LIMIT_MB);
  return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : 64 * 1024 * 1024;
}

/**
 * A log file that stops growing at its limit, with a note saying so: whatever a task prints, the
 * trial's folder stays bounded. A full disk surfaces as DiskFullError.
 */
export class CappedLog implements TarFileSink {
  private written = 0;
  private cut = 0;

  constructor(readonly file: string, private readonly limit = logLimitBytes()) {
    try {
      this.written = fs.statSync(file).size;
    } catch {
      this.written = 0;
    }
  }

  write(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const room = this.limit - this.written;
    if (room <= 0) { this.cut += buf.length; return; }
    const take = buf.length > room ? buf.subarray(0, room) : buf;
    guardWrite(this.file, () => fs.appendFileSync(this.file, take));
    this.written += take.length;
    this.cut += buf.length - take.length;
  }

  /** Writes the truncation note, once, when anything was cut. */
  end(): void {
    if (!this.cut) return;
    const note = `\n[taskwright: log truncated at ${this.limit} bytes; ${this.cut} more bytes not kept (TASKWRIGHT_LOG_LIMIT_MB)]\n`;
    guardWrite(this.file, () => fs.appendFileSync(this.file, note));
    this.cut = 0;
    this.written = this.limit;
  }
}
