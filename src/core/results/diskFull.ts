/**
 * A full disk (results store or working folder) is a fault of the host: the run stops cleanly with
 * one message, never a stack trace, and the trial in flight is recorded as infra `disk-full` when a
 * line can still be written.
 */
export class DiskFullError extends Error {
  constructor(readonly file: string, cause: unknown) {
    super(`no space left on the device holding ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DiskFullError';
  }
}

export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || e instanceof DiskFullError;
}

/** Runs a write; a full disk becomes a DiskFullError naming the file. */
export function guardWrite<T>(file: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (isDiskFull(e) && !(e instanceof DiskFullError)) throw new DiskFullError(file, e);
    throw e;
  }
}
