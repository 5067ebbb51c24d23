import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A run lease: a file per run on this host whose modification time its owner refreshes while the
 * run lives. The reaper judges a run's containers by it rather than by the owner's pid alone, which
 * a process in another pid namespace (a dev container sharing the host name) cannot see, and which
 * the system may hand to an unrelated process after the owner died.
 */
export const LEASE_REFRESH_MS = 10_000;
/** A lease not refreshed for this many refresh intervals belongs to a dead (or frozen) run. */
export const LEASE_STALE_FACTOR = 3;

export function leaseDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TASKWRIGHT_LEASE_DIR || path.join(os.tmpdir(), 'taskwright-leases');
}

function leaseFile(dir: string, runId: string): string {
  return path.join(dir, `${runId.replace(/[^A-Za-z0-9_.-]+/g, '-')}.lease`);
}

export type LeaseState = 'fresh' | 'stale' | 'absent';

export function leaseState(runId: string, now = Date.now(), dir = leaseDir(), refreshMs = LEASE_REFRESH_MS): LeaseState {
  try {
    const st = fs.statSync(leaseFile(dir, runId));
    return now - st.mtimeMs <= refreshMs * LEASE_STALE_FACTOR ? 'fresh' : 'stale';
  } catch {
    return 'absent';
  }
}

/** Who wrote a run's lease file (pid and host), when it can be read. */
export function leaseOwner(runId: string, dir = leaseDir()): { readonly pid?: number; readonly host?: string } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(leaseFile(dir, runId), 'utf8')) as { pid?: unknown; host?: unknown };
    return { ...(typeof v.pid === 'number' ? { pid: v.pid } : {}), ...(typeof v.host === 'string' ? { host: v.host } : {}) };
  } catch {
    return undefined;
  }
}

/** Held by a running `TrialRunner`; nested holds of the same run share one file. */
export class RunLease {
  private timer: NodeJS.Timeout | undefined;
  private holds = 0;
  private readonly file: string;

  constructor(readonly runId: string, private readonly dir = leaseDir(), private readonly refreshMs = LEASE_REFRESH_MS) {
    this.file = leaseFile(dir, runId);
  }

  acquire(): void {
    if (this.holds++ > 0) return;
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(this.file, `${JSON.stringify({ run: this.runId, pid: process.pid, host: os.hostname() })}\n`);
    this.timer = setInterval(() => this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  refresh(): void {
    const t = new Date();
    try {
      fs.utimesSync(this.file, t, t);
    } catch {
      // Removed under us (a tmp cleaner): write it again, or the reaper would take the run for dead.
      try { fs.writeFileSync(this.file, `${JSON.stringify({ run: this.runId, pid: process.pid, host: os.hostname() })}\n`); } catch { /* the next refresh tries again */ }
    }
  }

  release(): void {
    if (this.holds === 0 || --this.holds > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    fs.rmSync(this.file, { force: true });
  }
}
