import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import { planFor, type VerifierVerdict } from '../sandbox/formats';
import type { ContainerRuntime } from '../sandbox/runtime';
import type { SnapshotRuntime } from '../sandbox/snapshot';
import { entryFromFile, packTar, type TarEntry } from '../sandbox/tar';
import { testsEntries } from '../sandbox/testsArchive';
import { CappedBytes, readTarStream, type TarFileSink } from '../sandbox/tarReader';
import { escapeRegExp } from '../parse/regex';
import { writeSolved } from './ledger';

/** One file the reference solution wrote (from the container's diff against its image). */
export interface OutputFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** UTF-8 text when the file is small and has no NUL byte (only such files are mutated). */
  readonly text?: string;
  /** Its path or name appears in the instruction: an output the task asks for. */
  readonly named: boolean;
}

/** The oracle's solved state, committed once; behavioural checks start their containers from it. */
export interface SolvedState {
  readonly image: string;
  readonly outputs: readonly OutputFile[];
  /** `locale -a` in the image (lower-cased). */
  readonly locales: readonly string[];
  /** First site-packages folder of the image's `python3`, when it has one. */
  readonly pythonSite?: string;
}

/** Harness, cache and scratch paths: never the solution's answer. */
const NOT_OUTPUT = [
  /^\/(proc|sys|dev|run|tmp|var\/tmp|var\/cache|var\/log|var\/lib\/(apt|dpkg))(\/|$)/,
  /^\/(solution|oracle|tests|logs|agent-logs|installed-agent)(\/|$)/,
  /^\/root\/\.(cache|bash_history|local\/share|wget-hsts|python_history|lesshst)/,
  /(^|\/)__pycache__(\/|$)|\.pyc$/,
  /^\/etc\/(ld\.so\.cache|mtab|hostname|hosts|resolv\.conf)$/,
];
const MAX_FILES = 24;
const MAX_TEXT = 64 * 1024;

/** A file read from an archive stream: its hash and size over every byte, its first bytes kept. */
class HashedFile implements TarFileSink {
  private readonly hash = createHash('sha256');
  readonly head: CappedBytes;
  size = 0;
  sha256 = '';
  constructor(readonly name: string, keep: number) { this.head = new CappedBytes(keep); }
  write(chunk: Buffer): void { this.hash.update(chunk); this.size += chunk.length; this.head.write(chunk); }
  end(): void { this.sha256 = this.hash.digest('hex'); }
}

/** The regular files of an archive stream, never held whole (an agent's output may be gigabytes). */
async function filesOf(stream: AsyncIterable<Buffer | string> | undefined, keep: number): Promise<HashedFile[]> {
  const out: HashedFile[] = [];
  if (stream) await readTarStream(stream, (name) => { const f = new HashedFile(name, keep); out.push(f); return f; });
  return out;
}

export function isOutputPath(p: string, harnessDirs: readonly string[]): boolean {
  if (NOT_OUTPUT.some((re) => re.test(p))) return false;
  return !harnessDirs.some((d) => p === d || p.startsWith(`${d.replace(/\/+$/, '')}/`));
}

/** Leaves of a diff: a changed folder is listed beside each changed file under it. */
export function leafPaths(paths: readonly string[]): string[] {
  const set = [...new Set(paths)].sort();
  return set.filter((p, i) => !(set[i + 1]?.startsWith(`${p}/`)));
}

export function named(instruction: string, p: string): boolean {
  return instruction.includes(p) || new RegExp(`(^|[^\\w.-])${escapeRegExp(path.posix.basename(p))}($|[^\\w-])`).test(instruction);
}

/**
 * The hook run in one oracle trial after the solution and before the verifier: reads what the
 * solution changed, then commits the container. Failures only log: the checks that need the
 * snapshot are then skipped with the reason.
 */
export function snapshotHook(runtime: ContainerRuntime & SnapshotRuntime, labels: Readonly<Record<string, string>>, dir: string, done: (s: SolvedState | string) => void): (s: TrialSession) => Promise<void> {
  return async (session) => {
    const task = session.task;
    try {
      const plan = planFor(task, 'snapshot', 'snapshot');
      const changes = await runtime.diff(session.containerId);
      const candidates = leafPaths(changes.filter((c) => c.kind !== 'deleted').map((c) => c.path)).filter((p) => isOutputPath(p, plan.mkdirs)).slice(0, MAX_FILES);
      const instruction = task.instruction ?? '';
      const outputs: OutputFile[] = [];
      for (const p of candidates) {
        const files = await filesOf(await runtime.getArchive(session.containerId, p), MAX_TEXT);
        // A single regular file comes back as one entry named after it; folders are not outputs to mutate.
        const f = files.length === 1 ? files[0] : undefined;
        if (!f || f.name !== path.posix.basename(p)) continue;
        const data = f.head.bytes();
        const text = !f.head.truncated && !data.includes(0) ? data.toString('utf8') : undefined;
        outputs.push({ path: p, size: f.size, sha256: f.sha256, ...(text !== undefined ? { text } : {}), named: named(instruction, p) });
      }
      const probe = await session.exec('locale -a 2>/dev/null; echo @@; python3 -c "import site; print(site.getsitepackages()[0])" 2>/dev/null || true');
      const [loc = '', site = ''] = probe.stdout.split('@@');
      const image = await runtime.commit(session.containerId, labels, { dir });
      session.log(`[snapshot of the solved state: ${outputs.length} output file(s): ${outputs.map((o) => o.path).join(', ') || 'none'}]`);
      const state: SolvedState = { image, outputs, locales: loc.split('\n').map((l) => l.trim().toLowerCase()).filter(Boolean), ...(site.trim() ? { pythonSite: site.trim() } : {}) };
      // Beside the trial's record: a resumed validation plans the snapshot checks from it (without
      // it, a resume takes the snapshot again).
      try { writeSolved(session.logDir, state); } catch (e) { session.log(`[solved state not saved: ${e instanceof Error ? e.message : String(e)}]`); }
      done(state);
    } catch (e) {
      const why = `the solved state could not be snapshotted: ${e instanceof Error ? e.message : String(e)}`;
      session.log(`[${why}]`);
      try { writeSolved(session.logDir, why); } catch { /* the reason is in the log already */ }
      done(why);
    }
  };
}

/** The verifier's files as the harness copies them (for running the verifier an extra time). */
export function verifierArchive(task: Task): Buffer {
  const plan = planFor(task, 'x', 'x');
  const target = plan.testsTarget.replace(/^\/+/, '');
  const entries: TarEntry[] = plan.mkdirs.map((d) => ({ name: d.replace(/^\/+/, ''), mode: 0o755, type: 'dir' as const }));
  entries.push(...testsEntries(task, target));
  for (const [rel, name] of plan.extraTestFiles) {
    const abs = path.resolve(task.dir, rel);
    if (fs.existsSync(abs)) entries.push(entryFromFile(abs, `${target}/${name}`));
    // As the runner does: TB1 runs the tests with pytest when a task ships no run-tests.sh.
    else if (task.format === 'tb1' && name === 'run-tests.sh') entries.push({ name: `${target}/${name}`, mode: 0o755, type: 'file', data: Buffer.from('#!/bin/bash\npython3 -m pytest "$TEST_DIR" -rA\n') });
  }
  return packTar(entries);
}

/**
 * Runs the verifier once inside a trial's container, as the harness would, and clears the
 * reward it wrote: the trial's own verifier run then follows in the same container.
 */
export async function runVerifierOnce(runtime: ContainerRuntime, session: TrialSession): Promise<VerifierVerdict> {
  const task = session.task;
  const plan = planFor(task, 'x', 'x');
  await runtime.putArchive(session.containerId, '/', verifierArchive(task));
  const v = await runtime.exec(session.containerId, { cmd: plan.verifyCommand, env: plan.verifierEnv, user: task.verifier.user, timeoutMs: plan.verifierTimeoutSec * 1000 });
  const files: Record<string, string> = {};
  const tar = plan.rewardDir ? await runtime.getArchive(session.containerId, plan.rewardDir) : undefined;
  for (const f of await filesOf(tar, MAX_TEXT)) if (f.name.split('/').filter(Boolean).length === 2) files[path.posix.basename(f.name)] = f.head.bytes().toString('utf8');
  const verdict = plan.verdict(v.stdout, v.stderr, v.exitCode ?? -1, files);
  if (plan.rewardDir) await session.exec(`rm -f ${plan.rewardDir}/reward.txt ${plan.rewardDir}/reward.json`);
  session.log(`[first verifier run in this container: ${verdict.detail}]`);
  return verdict;
}
