import { PATH_OUTSIDE_TASK } from '../sandbox/contain';
import type { Finding } from '../model/finding';
import type { Task } from '../model/task';
import type { TrialRecord } from '../results/trial';
import { isVerdict } from '../sandbox/outcome';
import { wilsonInterval } from '../band/stats';
import type { CheckResult, FlakeRate, TaskValidation, ValidationVerdict } from './types';

/**
 * Turns a task's validation trials into checks, findings and one verdict. Pure: the rules are
 * tested on records without an engine. Infra errors never count against the task: a check with no
 * verdict-bearing trial is an `error`, not a `fail`.
 */
export interface TaskTrials {
  readonly task: Task;
  readonly path: string;
  /** Build failure message, when the image did not build. */
  readonly buildError?: { readonly kind: string; readonly message: string };
  readonly buildSec?: number;
  readonly nop: readonly TrialRecord[];
  readonly oracle: readonly TrialRecord[];
  /** Probe name → its trials. */
  readonly probes: Readonly<Record<string, readonly TrialRecord[]>>;
  readonly probeDescriptions?: Readonly<Record<string, string>>;
  /** Probe name → its one-line fix and the rule of its finding (default `reward-not-isolated`). */
  readonly probeFixes?: Readonly<Record<string, { readonly fix: string; readonly rule?: string }>>;
  /** Share of a timeout above which the oracle's duration is too close (default 0.8). */
  readonly marginShare?: number;
  /** Every try, infra retries included (defaults to the trials above). */
  readonly allTrials?: readonly TrialRecord[];
}

const scored = (r: TrialRecord): boolean => (r.reward ?? 0) > 0;
const passed = (r: TrialRecord): boolean => r.outcome === 'passed';

function outcomes(rs: readonly TrialRecord[]): string {
  const c = new Map<string, number>();
  for (const r of rs) c.set(r.outcome, (c.get(r.outcome) ?? 0) + 1);
  return [...c].map(([k, v]) => `${v} ${k}`).join(', ');
}

function infraSummary(rs: readonly TrialRecord[]): string {
  const bad = rs.filter((r) => r.outcome === 'infra-error');
  if (!bad.length) return '';
  const first = bad[0]?.infra;
  return ` (${bad.length} infra error${bad.length > 1 ? 's' : ''}, not counted${first ? `: ${first.kind}: ${first.message}` : ''})`;
}

function fieldRange(task: Task, keys: readonly string[]): Pick<Finding, 'file' | 'range'> {
  for (const k of keys) {
    const f = task.fields[k];
    if (f) return { file: f.file, range: f.range };
  }
  return { file: task.configFile };
}

function environmentFile(task: Task): string {
  return task.environment.dockerfile ?? task.environment.composeFile ?? task.configFile;
}

export function analyzeTask(t: TaskTrials): TaskValidation {
  const { task } = t;
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  const testsFile = task.verifier.entry;
  const all = t.allTrials ? [...t.allTrials] : [...t.nop, ...t.oracle, ...Object.values(t.probes).flat()];

  const outside = t.buildError?.kind === PATH_OUTSIDE_TASK ? t.buildError.message : all.find((r) => r.taskProblem?.rule === PATH_OUTSIDE_TASK)?.taskProblem?.message;
  if (outside) {
    // Nothing was copied: the task's files lead out of it, so no run of it says anything.
    checks.push({ name: 'build', status: t.buildError ? 'fail' : 'pass', runs: 1, detail: t.buildError ? outside : 'image built' });
    findings.push({ rule: PATH_OUTSIDE_TASK, class: 'invalidity', severity: 'error', file: task.configFile, message: outside });
    return { path: t.path, id: task.id, verdict: 'invalid', checks, findings, trials: all };
  }
  if (t.buildError) {
    checks.push({ name: 'build', status: 'fail', runs: 1, detail: t.buildError.message });
    for (const name of ['nop', 'oracle', 'agreement', 'reward-isolation', 'timeout-margin'] as const) {
      checks.push({ name, status: 'skipped', runs: 0, detail: 'the image did not build' });
    }
    const missing = t.buildError.kind === 'image-missing';
    findings.push({
      rule: missing ? 'image-missing' : 'build-fails',
      class: 'infra',
      severity: 'error',
      file: environmentFile(task),
      message: `${missing ? 'The environment image is missing' : 'The environment does not build'}: ${t.buildError.message}`,
    });
    return { path: t.path, id: task.id, verdict: 'infra-error', checks, findings, trials: all };
  }
  checks.push({ name: 'build', status: 'pass', runs: 1, detail: t.buildSec ? `built in ${t.buildSec.toFixed(1)} s` : 'image up to date' });

  // nop: doing nothing must score 0.
  const nopV = t.nop.filter((r) => isVerdict(r.outcome));
  const nopScored = nopV.filter(scored);
  if (!nopV.length) checks.push({ name: 'nop', status: 'error', runs: 0, detail: `no nop trial gave a verdict${infraSummary(t.nop)}` });
  else if (nopScored.length) {
    const nopSkips = Math.max(0, ...nopScored.map((r) => r.countedSkips ?? 0));
    const why = nopSkips ? `; ${nopSkips} skipped test(s) counted as passed by TB1's parser` : '';
    checks.push({ name: 'nop', status: 'fail', runs: nopV.length, detail: `${nopScored.length}/${nopV.length} nop trials scored > 0 (${outcomes(nopV)})${why}${infraSummary(t.nop)}` });
    findings.push({
      rule: 'nop-passes', class: 'misalignment', severity: 'error', file: testsFile,
      message: `The verifier gives reward without a solution: ${nopScored.length} of ${nopV.length} runs of an agent that does nothing scored ${nopScored.map((r) => r.reward).join(', ')}${why}.`,
    });
  } else checks.push({ name: 'nop', status: 'pass', runs: nopV.length, detail: `${nopV.length}/${nopV.length} nop trials scored 0${infraSummary(t.nop)}` });

  // oracle: the reference solution must pass, every time.
  const orV = t.oracle.filter((r) => isVerdict(r.outcome));
  const orPassed = orV.filter(passed);
  const skips = Math.max(0, ...orV.map((r) => r.countedSkips ?? 0));
  const skipNote = skips ? `; ${skips} skipped/xfailed test(s) counted as passed (TB1 semantics)` : '';
  if (!task.solution.file) {
    checks.push({ name: 'oracle', status: 'fail', runs: 0, detail: 'the task has no reference solution' });
    findings.push({ rule: 'oracle-fails', class: 'invalidity', severity: 'error', file: task.configFile, message: 'The task has no reference solution, so nothing proves it solvable.' });
  } else if (!orV.length) checks.push({ name: 'oracle', status: 'error', runs: 0, detail: `no oracle trial gave a verdict${infraSummary(t.oracle)}` });
  else if (orPassed.length < orV.length) {
    checks.push({ name: 'oracle', status: 'fail', runs: orV.length, detail: `${orPassed.length}/${orV.length} oracle trials passed (${outcomes(orV)})${infraSummary(t.oracle)}` });
    findings.push({
      rule: 'oracle-fails', class: 'invalidity', severity: 'error', file: task.solution.file,
      message: `The reference solution does not pass: ${orPassed.length} of ${orV.length} oracle runs passed (${outcomes(orV)}).`,
    });
  } else checks.push({ name: 'oracle', status: 'pass', runs: orV.length, detail: `${orV.length}/${orV.length} oracle trials passed${skipNote}${infraSummary(t.oracle)}` });
  if (skips) {
    findings.push({
      rule: 'skips-counted-as-passes', class: 'misalignment', severity: 'info', file: testsFile,
      message: `${skips} test(s) were skipped or xfailed in the oracle's run yet counted as passed by Terminal-Bench 1's parser.`,
    });
  }

  // agreement: identical runs must give identical verdicts.
  const mixed = [['oracle', orV], ['nop', nopV]].filter(([, rs]) => {
    const v = rs as TrialRecord[];
    return v.length > 1 && new Set(v.map(passed)).size > 1;
  }).map(([n]) => n as string);
  const agreementRuns = orV.length + nopV.length;
  const flake = { oracle: flakeRate(orV.length, orV.length - orPassed.length), nop: flakeRate(nopV.length, nopV.filter(passed).length) };
  const rates = `flip rate oracle ${showRate(flake.oracle)}, nop ${showRate(flake.nop)}`;
  if (orV.length < 2 && nopV.length < 2) checks.push({ name: 'agreement', status: 'skipped', runs: agreementRuns, detail: 'fewer than 2 verdicts per agent' });
  else if (mixed.length) {
    checks.push({ name: 'agreement', status: 'fail', runs: agreementRuns, detail: `verdicts differ between identical runs of ${mixed.join(' and ')} (oracle: ${outcomes(orV)}; nop: ${outcomes(nopV)}); ${rates}` });
    findings.push({
      rule: 'flaky-verdict', class: 'brittleness', severity: 'warning', file: testsFile,
      message: `The verdict changes between identical runs of ${mixed.join(' and ')} (oracle: ${outcomes(orV)}; nop: ${outcomes(nopV)}; ${rates}).`,
    });
  } else checks.push({ name: 'agreement', status: 'pass', runs: agreementRuns, detail: `identical runs gave identical verdicts (${rates})` });

  // reward isolation: what an agent can plant must not earn reward.
  const probeNames = Object.keys(t.probes);
  const probeV = probeNames.flatMap((n) => (t.probes[n] ?? []).filter((r) => isVerdict(r.outcome)).map((r) => ({ n, r })));
  const leaked = [...new Set(probeV.filter(({ r }) => scored(r)).map(({ n }) => n))];
  if (!probeNames.length) checks.push({ name: 'reward-isolation', status: 'skipped', runs: 0, detail: 'no probes run' });
  else if (nopScored.length) checks.push({ name: 'reward-isolation', status: 'skipped', runs: 0, detail: 'doing nothing already earns reward, so planted files prove nothing more' });
  else if (!probeV.length) checks.push({ name: 'reward-isolation', status: 'error', runs: 0, detail: `no probe trial gave a verdict${infraSummary(Object.values(t.probes).flat())}` });
  else if (leaked.length) {
    checks.push({ name: 'reward-isolation', status: 'fail', runs: probeV.length, detail: `reward earned by ${leaked.map((n) => t.probeDescriptions?.[n] ?? n).join('; ')}` });
    // One finding per hole, with its own fix: which plant earned reward says what to change.
    for (const n of leaked) {
      const fx = t.probeFixes?.[n];
      const inImage = (fx?.rule ?? (n === 'solution-in-image' ? 'answer-or-solution-in-image' : undefined)) === 'answer-or-solution-in-image';
      const what = t.probeDescriptions?.[n] ?? n;
      findings.push(inImage ? {
        rule: 'answer-or-solution-in-image', class: 'misalignment', severity: 'error', file: environmentFile(task),
        message: `An agent that finds the answer in the image earns reward (probe '${n}': ${what}). ${fx?.fix ?? 'Keep solution files out of the build context (or remove them in the same layer).'}`,
      } : {
        rule: 'reward-not-isolated', class: 'misalignment', severity: 'error', file: testsFile,
        message: `An agent that only plants files earns reward (probe '${n}': ${what}). ${fx?.fix ?? 'Run pytest with --noconftest and -c pointing at a verifier-owned ini (or -p no:cacheprovider --rootdir=/tests), and write the reward on every path.'}`,
      });
    }
  } else checks.push({ name: 'reward-isolation', status: 'pass', runs: probeV.length, detail: `verdict stayed 0 with ${probeNames.join(', ')} planted` });

  // timeout margin: the oracle's durations against the task's timeouts.
  const share = t.marginShare ?? 0.8;
  const timed = orV.filter((r) => r.durations.agent !== null || r.durations.verifier !== null);
  if (!timed.length) checks.push({ name: 'timeout-margin', status: 'skipped', runs: 0, detail: 'no oracle durations' });
  else {
    const maxAgent = Math.max(...timed.map((r) => r.durations.agent ?? 0));
    const maxVerifier = Math.max(...timed.map((r) => r.durations.verifier ?? 0));
    const near: string[] = [];
    if (maxAgent > share * task.timeouts.agentSec) near.push(`agent ${maxAgent.toFixed(1)} s of ${task.timeouts.agentSec} s`);
    if (maxVerifier > share * task.timeouts.verifierSec) near.push(`verifier ${maxVerifier.toFixed(1)} s of ${task.timeouts.verifierSec} s`);
    const timeouts = orV.filter((r) => r.outcome === 'agent-timeout' || r.outcome === 'verifier-timeout');
    if (near.length || timeouts.length) {
      const detail = near.length ? `within ${Math.round((1 - share) * 100)}% of the timeout: ${near.join('; ')}` : `${timeouts.length} oracle run(s) timed out`;
      checks.push({ name: 'timeout-margin', status: 'fail', runs: timed.length, detail });
      const verifierSide = near.some((n) => n.startsWith('verifier')) || timeouts.some((r) => r.outcome === 'verifier-timeout');
      findings.push({
        rule: 'timeout-margin', class: 'brittleness', severity: 'warning',
        ...fieldRange(task, verifierSide
          ? ['verifier.timeout_sec', 'max_test_timeout_sec']
          : ['agent.timeout_sec', 'max_agent_timeout_sec']),
        message: `The reference solution runs close to its time budget (${detail}); on a slower or busier machine it will time out.`,
      });
    } else checks.push({ name: 'timeout-margin', status: 'pass', runs: timed.length, detail: `oracle max: agent ${maxAgent.toFixed(1)} s / ${task.timeouts.agentSec} s, verifier ${maxVerifier.toFixed(1)} s / ${task.timeouts.verifierSec} s` });
  }

  const infraTrials = all.filter((r) => r.outcome === 'infra-error');
  if (infraTrials.length) {
    const first = infraTrials[0]?.infra;
    findings.push({
      rule: 'infra-error', class: 'infra', severity: 'warning', file: environmentFile(task),
      message: `${infraTrials.length} trial(s) hit infrastructure errors (not counted against the task)${first ? `: ${first.kind}: ${first.message}` : ''}.`,
    });
  }

  const ooms = all.filter((r) => r.outcome === 'verifier-oom');
  if (ooms.length) {
    findings.push({
      rule: 'verifier-oom', class: 'infra', severity: 'error',
      ...fieldRange(task, ['environment.memory_mb', 'environment.memory', 'max_memory_mb']),
      message: `The verifier was OOM-killed in ${ooms.length} trial(s): the task's memory limit is too tight for its own verifier (those trials are not verdicts).`,
    });
  }

  const verdict = overallVerdict(checks, orPassed.length === 0);
  const probes = probeNames.map((n) => {
    const r = (t.probes[n] ?? [])[(t.probes[n] ?? []).length - 1];
    return { name: n, description: t.probeDescriptions?.[n] ?? n, reward: r?.reward ?? null, outcome: r?.outcome ?? 'not run' };
  });
  return { path: t.path, id: task.id, verdict, checks, findings, trials: all, probes, ...(orV.length || nopV.length ? { flake } : {}) };
}

/** One verdict from the checks: a wrong task beats a hackable one beats a brittle one. */
export function overallVerdict(checks: readonly CheckResult[], oracleNeverPassed: boolean): ValidationVerdict {
  const status = (n: string): string | undefined => checks.find((c) => c.name === n)?.status;
  if (status('oracle') === 'fail' && oracleNeverPassed) return 'invalid';
  if (status('nop') === 'fail' || status('reward-isolation') === 'fail' || status('mutants') === 'fail') return 'misaligned';
  if (['oracle', 'agreement', 'timeout-margin', 'environment', 'test-order', 'stale-state'].some((n) => status(n) === 'fail')) return 'brittle';
  if (checks.some((c) => c.status === 'error')) return 'infra-error';
  return 'valid';
}

export function flakeRate(runs: number, flips: number): FlakeRate {
  const [low, high] = wilsonInterval(flips, runs) ?? [0, 1];
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  return { runs, flips, rate: runs ? r3(flips / runs) : 0, low: r3(low), high: r3(high) };
}

const showRate = (f: FlakeRate): string => `${f.flips}/${f.runs} [${f.low.toFixed(2)}, ${f.high.toFixed(2)}]`;
