import type { Task } from '../model/task';
import type { FingerprintedFinding } from './fingerprint';
import { auditTaskFingerprinted, type AuditOptions } from './index';
import { loadTask } from '../loader/index';

/**
 * One task's audit as the report writers stream it: what they need of the task and its findings
 * (with fingerprints; quick fixes left out — reports do not apply them). Plain data, so it crosses
 * worker threads and spool files as it is.
 */
export interface AuditRecord {
  readonly dir: string;
  readonly id: string;
  readonly format: Task['format'];
  readonly configFile: string;
  readonly findings: readonly FingerprintedFinding[];
}

export function toRecord(task: Task, findings: readonly FingerprintedFinding[]): AuditRecord {
  return {
    dir: task.dir, id: task.id, format: task.format, configFile: task.configFile,
    findings: findings.map((f) => {
      if (!f.fix) return f;
      const { fix: _fix, ...rest } = f;
      return rest;
    }),
  };
}

/** Loads and audits one task folder; never throws for a bad task (loader problems are findings). */
export async function auditDir(dir: string, options: AuditOptions = {}): Promise<AuditRecord> {
  const task = await loadTask(dir, options.overlay ? { overlay: options.overlay } : {});
  return toRecord(task, await auditTaskFingerprinted(task, options));
}
