import type { CliIo } from './command';

/** Live output queued for the terminal beyond which more is skipped (its bytes are all in the trial logs). */
export const LIVE_BACKLOG_LIMIT = 8 * 1024 * 1024;

/**
 * `--verbose`: trial output echoed to stderr as it comes. A terminal or pipe that reads slower than
 * the trials write would make the echo queue in memory without bound (469 MB measured for a 128 MB
 * print read at 4 MB/s), so past `limit` queued bytes the echo skips, and says how much once the
 * reader has caught up. The trial's log files always get every byte; only this copy is lossy.
 */
export function liveEcho(io: Pick<CliIo, 'err' | 'errBacklog'>, limit = LIVE_BACKLOG_LIMIT): (text: string) => void {
  let skipped = 0;
  return (text) => {
    if ((io.errBacklog?.() ?? 0) > limit) {
      skipped += Buffer.byteLength(text);
      return;
    }
    if (skipped) {
      io.err(`[taskwright: ${skipped} bytes of live output skipped: the terminal read slower than the trial wrote; the trial's log files have all of it]`);
      skipped = 0;
    }
    io.err(text.replace(/\n$/, ''));
  };
}
