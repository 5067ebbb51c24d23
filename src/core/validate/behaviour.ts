import type { Agent, AgentResult, TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import type { VerifierVerdict } from '../sandbox/formats';
import type { ContainerRuntime } from '../sandbox/runtime';
import type { BeforeVerifierHook } from '../sandbox/trial';
import { mutantsOf, orderMatters, type Mutant } from './mutants';
import type { SnapshotImages } from './snapshotImages';
import { runVerifierOnce, type SolvedState } from './solved';
import { VARIATIONS, variationEnv, type Variation } from './variations';
import { verifierMentions } from './verifierText';
import { writeFirstRun } from './ledger';

/**
 * Behavioural checks started from the solved snapshot: output mutants, the verifier run twice,
 * tests in another order, environment variations. Each is a job for the trial runner (so it is
 * recorded, retried on infra errors and cleaned up like any trial) whose agent does nothing and
 * whose hook changes one thing before the verifier runs.
 */
export class HookAgent implements Agent {
  /** The hook is the trial's `beforeVerifier` (a trial with one is never started from a ready snapshot). */
  readonly inert = true;
  constructor(readonly spec: string) {}
  run(): Promise<AgentResult> {
    return Promise.resolve({ status: 'completed', steps: 0 });
  }
}

export type BehaviourKind = 'mutant' | 'stale' | 'order' | 'env';

export interface BehaviourJob {
  readonly kind: BehaviourKind;
  readonly label: string;
  readonly task: Task;
  readonly agent: Agent;
  hook?: BeforeVerifierHook;
  readonly mutant?: { readonly file: string; readonly mutant: Mutant };
  readonly order?: 'reverse' | `seed:${number}`;
  readonly variations?: readonly Variation[];
  /** Filled by the stale-state hook: the first of the two verifier runs. */
  firstRun?: VerifierVerdict;
}

export interface BehaviourOptions {
  /** Mutants per output file (0: none). */
  readonly mutants: number;
  /** Cap on mutants per task. */
  readonly maxMutants?: number;
  readonly variations: boolean;
  readonly order: boolean;
  readonly stale: boolean;
  readonly seed?: number;
}

const ORDER_PLUGIN = [
  'import os, random',
  '',
  'def pytest_collection_modifyitems(session, config, items):',
  '    mode = os.environ.get("TASKWRIGHT_ORDER", "")',
  '    if mode == "reverse":',
  '        items.reverse()',
  '    elif mode.startswith("seed:"):',
  '        random.Random(int(mode[5:])).shuffle(items)',
  '    config._taskwright_order = f"{mode} ({len(items)} tests)"',
  '',
  'def pytest_terminal_summary(terminalreporter, exitstatus, config):',
  '    terminalreporter.write_line("taskwright-order: " + getattr(config, "_taskwright_order", "not applied"))',
  '',
].join('\n');

/** The line the order plugin prints: proof that the order really changed. */
export const ORDER_MARK = /taskwright-order: (reverse|seed:\d+) \((\d+) tests\)/;

function mutantHook(file: string, m: Mutant): BeforeVerifierHook {
  return async (s) => {
    s.log(`[mutant: ${m.description} in ${file}]`);
    const cmd = m.content === '' ? `: > '${file}'` : `printf '%s' "$TW_MUTANT" | base64 -d > '${file}'`;
    const r = await s.exec(cmd, { env: { TW_MUTANT: Buffer.from(m.content).toString('base64') } });
    if (r.exitCode !== 0) throw new Error(`could not write the mutant of ${file}: ${r.stderr.trim()}`);
  };
}

function orderHook(site: string): BeforeVerifierHook {
  return async (s: TrialSession) => {
    const r = await s.exec(`printf '%s' "$TW_PLUGIN" | base64 -d > '${site}/taskwright_order.py'`, { env: { TW_PLUGIN: Buffer.from(ORDER_PLUGIN).toString('base64') } });
    if (r.exitCode !== 0) s.log(`[order plugin not installed: ${r.stderr.trim()}]`);
  };
}

/** The jobs for one task's solved snapshot. */
export function behaviourJobs(runtime: ContainerRuntime, images: SnapshotImages, task: Task, solved: SolvedState, opts: BehaviourOptions): BehaviourJob[] {
  const jobs: BehaviourJob[] = [];
  const plain = (): Task => images.variant(task, solved.image);
  if (opts.stale) {
    const job: BehaviourJob = { kind: 'stale', label: 'stale-twice', task: plain(), agent: new HookAgent('check:stale') };
    job.hook = async (s) => {
      job.firstRun = await runVerifierOnce(runtime, s);
      // Kept with the trial: a resumed validation judges this check without running it again.
      writeFirstRun(s.logDir, job.firstRun);
    };
    jobs.push(job);
  }
  if (opts.mutants > 0) {
    const order = orderMatters(task.instruction ?? '');
    let n = 0;
    for (const o of solved.outputs.filter((x) => x.named && x.text !== undefined)) {
      for (const m of mutantsOf(o.text ?? '', { max: opts.mutants, orderMatters: order })) {
        if (n >= (opts.maxMutants ?? 12)) break;
        n++;
        jobs.push({ kind: 'mutant', label: `mutant-${n}`, task: plain(), agent: new HookAgent('check:mutant'), hook: mutantHook(o.path, m), mutant: { file: o.path, mutant: m } });
      }
    }
  }
  if (opts.order && solved.pythonSite && verifierMentions(task, /pytest/)) {
    const seed = opts.seed ?? 20240601;
    for (const mode of ['reverse', `seed:${seed}`] as const) {
      jobs.push({
        kind: 'order', label: `order-${mode.replace(':', '-')}`, order: mode, agent: new HookAgent('check:order'), hook: orderHook(solved.pythonSite),
        task: images.variant(task, solved.image, { TASKWRIGHT_ORDER: mode, PYTEST_ADDOPTS: '-p taskwright_order' }),
      });
    }
  }
  if (opts.variations) for (const g of ['a', 'b'] as const) jobs.push(variationJob(images, task, solved, VARIATIONS.filter((v) => v.group === g), `env-${g}`));
  return jobs;
}

export function variationJob(images: SnapshotImages, task: Task, solved: SolvedState, vs: readonly Variation[], label: string): BehaviourJob {
  const cpus = vs.find((v) => v.cpus !== undefined)?.cpus;
  return { kind: 'env', label, variations: vs, agent: new HookAgent('check:env'), task: images.variant(task, solved.image, variationEnv(vs, solved), cpus) };
}
