import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { BaselineMatcher, BaselineWriter, baselinePath, readBaseline, type BaselineEntry } from '../../core/audit/baseline';
import { ConventionCounter } from '../../core/audit/conventions';
import { auditDirs } from '../../core/audit/pool';
import { sarifRoot } from '../../core/audit/sarif';
import { datasetOf, discoverTaskDirs } from '../../core/discovery/index';
import { SEVERITY_ORDER, type Severity } from '../../core/model/finding';
import { UsageError, type CliIo } from '../command';
import { JsonWriter, SarifWriter } from './jsonWriter';
import { Sink } from './jsonStream';
import type { ReportFinding, ReportTask, ReportWriter, RunSummary } from './model';
import { TextWriter } from './textWriter';

export interface AuditRunOptions {
  readonly format: 'text' | 'json' | 'sarif';
  /** Exit 1 when a reported (not baselined) finding is at least this severe; undefined: never. */
  readonly failOn: Severity | undefined;
  /** Findings below this severity are dropped before anything else (baselines, conventions, output). */
  readonly minSeverity: Severity;
  readonly baseline?: string;
  readonly writeBaseline?: string;
  /** Also report findings the baseline holds (marked unchanged) and, in SARIF, the absent ones. */
  readonly showBaselined: boolean;
  readonly expand: boolean;
  readonly jobs?: number;
  readonly docsUrl: string;
  readonly version: string;
}

/** The user's paths, checked, and how each task folder is shown (relative to the cwd unless absolute). */
function resolveRoots(given: readonly string[], io: CliIo): { roots: string[]; absolute: boolean; named: readonly string[] } {
  const named = given.length ? given : ['.'];
  const roots = named.map((p) => {
    const abs = path.resolve(io.cwd, p);
    if (!fs.existsSync(abs)) throw new UsageError(`no such file or folder: ${p}`);
    return abs;
  });
  return { roots, absolute: named.some((p) => path.isAbsolute(p)), named };
}

function posixRel(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join('/') || '.';
}

/**
 * `taskwright audit`: two passes, neither holding the findings. Pass one audits every task on the
 * worker pool (in path order), matches the baseline, writes --write-baseline, counts dataset
 * conventions and spools each task's findings to a temporary file, one line per task. Pass two
 * reads the spool back and writes the report, which by then knows the conventions and every rule used.
 */
export async function runAudit(positionals: readonly string[], o: AuditRunOptions, io: CliIo): Promise<number> {
  const { roots, absolute } = resolveRoots(positionals, io);
  const baseline = o.baseline ? await readBaseline(path.resolve(io.cwd, o.baseline)).catch((e: unknown) => { throw new UsageError(e instanceof Error ? e.message : String(e)); }) : undefined;
  const baseDir = o.baseline ? path.dirname(path.resolve(io.cwd, o.baseline)) : io.cwd;
  const matcher = baseline ? new BaselineMatcher(baseline, baseDir) : undefined;
  const writeDir = o.writeBaseline ? path.dirname(path.resolve(io.cwd, o.writeBaseline)) : undefined;
  const srcRoot = sarifRoot(io.cwd, roots);
  const dirs = await discoverTaskDirs(roots, { signal: io.signal });

  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskwright-audit-'));
  const spoolFile = path.join(spoolDir, 'tasks.ndjson');
  let writer: BaselineWriter | undefined;
  try {
    writer = o.writeBaseline ? await BaselineWriter.open(path.resolve(io.cwd, o.writeBaseline)) : undefined;
    const conventions = new ConventionCounter();
    const usedRules = new Set<string>();
    const min = SEVERITY_ORDER[o.minSeverity];
    const threshold = o.failOn ? SEVERITY_ORDER[o.failOn] : Infinity;
    let failed = false;
    let baselined = 0;
    const fd = fs.openSync(spoolFile, 'w');
    try {
      for await (const record of auditDirs(dirs, { ...(o.jobs ? { jobs: o.jobs } : {}), signal: io.signal })) {
        const dataset = datasetOf(record.dir, roots);
        const reported: ReportFinding[] = [];
        for (const f of record.findings) {
          if (SEVERITY_ORDER[f.severity] < min) continue;
          const entry = (dir: string): BaselineEntry => ({ rule: f.rule, file: baselinePath(dir, record.dir, f.file), fp: f.fp, severity: f.severity, message: f.message, line: f.range ? f.range.start.line + 1 : null });
          if (writer && writeDir) await writer.add(entry(writeDir));
          const state = matcher ? matcher.match(f.rule, baselinePath(baseDir, record.dir, f.file), f.fp) : undefined;
          if (state === 'unchanged' && !o.showBaselined) { baselined++; continue; }
          if (state !== 'unchanged' && SEVERITY_ORDER[f.severity] >= threshold) failed = true;
          usedRules.add(f.rule);
          reported.push(state ? { ...f, baseline: state } : f);
        }
        conventions.add(dataset, reported.map((f) => ({ rule: f.rule, severity: f.severity, file: f.file ?? null, line: f.range ? f.range.start.line + 1 : null, fp: f.fp, message: f.message })));
        const task: ReportTask = {
          path: absolute ? record.dir : posixRel(io.cwd, record.dir), rel: posixRel(srcRoot, record.dir), dataset,
          id: record.id, format: record.format, configFile: record.configFile, findings: reported,
        };
        fs.writeSync(fd, `${JSON.stringify(task)}\n`);
      }
    } finally {
      fs.closeSync(fd);
    }
    await writer?.close();
    writer = undefined;

    const absent = matcher?.absent();
    const summary: RunSummary = {
      tasks: dirs.length, conventions, usedRules, absent, baselined,
      baselineRel: matcher && o.showBaselined ? posixRel(srcRoot, baseDir) : undefined,
    };
    const sink = new Sink(io.out);
    const options = { expand: o.expand, docsUrl: o.docsUrl, version: o.version, sarifRoot: srcRoot };
    const report: ReportWriter = o.format === 'json' ? new JsonWriter(sink, summary, () => sink.end())
      : o.format === 'sarif' ? new SarifWriter(sink, summary, options, () => sink.end())
        : new TextWriter(sink, summary, options);
    const lines = readline.createInterface({ input: fs.createReadStream(spoolFile, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) if (line) report.task(JSON.parse(line) as ReportTask);
    report.end();
    return failed ? 1 : 0;
  } finally {
    if (writer) await writer.close().catch(() => undefined);
    fs.rmSync(spoolDir, { recursive: true, force: true });
  }
}
