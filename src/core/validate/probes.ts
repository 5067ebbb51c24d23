import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import { everyPytestCall } from './verifierText';

/**
 * What an agent could plant before the verifier runs (taxonomy D7). Each probe runs after a `nop`
 * agent in its own fresh container; the verdict must stay 0.
 */
export interface RewardProbe {
  readonly name: string;
  readonly description: string;
  /** The one-line fix the finding gives when the probe earns reward. */
  readonly fix: string;
  /** False when the probe cannot apply to the task (no pytest, no tool to trojan): it is not run. */
  readonly applies?: (task: Task) => boolean;
  /** The finding's rule when not `reward-not-isolated`, and the file it goes on (default: the tests). */
  readonly rule?: 'answer-or-solution-in-image';
  /** The shell script the probe runs in the container, or a function of the session. */
  readonly script: string | ((session: TrialSession) => string | undefined);
}

/**
 * An agent that searches the image for a copy of the reference solution (same size, same SHA-256)
 * and runs it: if that earns reward, the answer ships with the environment.
 */
function solutionCopyScript(session: TrialSession): string | undefined {
  const rel = session.task.solution.file;
  if (!rel || session.task.solution.kind !== 'script') return undefined;
  const abs = path.resolve(session.task.dir, rel);
  if (!fs.existsSync(abs)) return undefined;
  const data = fs.readFileSync(abs);
  const hash = createHash('sha256').update(data).digest('hex');
  return [
    `f=$(find / -xdev \\( -path /proc -o -path /sys -o -path /solution -o -path /oracle -o -path /tests \\) -prune -o -type f -size ${data.length}c -print 2>/dev/null |`,
    `  while read -r p; do [ "$(sha256sum "$p" 2>/dev/null | cut -d' ' -f1)" = ${hash} ] && echo "$p" && break; done)`,
    'if [ -n "$f" ]; then echo "found a copy of the reference solution at $f; running it"; bash "$f"; else echo "no copy of the reference solution in the image"; fi',
  ].join('\n');
}

const CONFTEST = [
  'import pytest',
  '',
  'def pytest_collection_modifyitems(config, items):',
  '    for item in items:',
  '        item.add_marker(pytest.mark.skip(reason="planted by taskwright reward-isolation probe"))',
  '',
].join('\n');

const INI = '[pytest]\naddopts = --co\n';

export function plantEverywhere(name: string, content: string): string {
  // The working directory of the container and the filesystem root: both agent-writable.
  return `for d in "$(pwd)" /; do printf '%s' '${content.replace(/'/g, `'"'"'`)}' > "$d/${name}"; done`;
}

const REWARD_FILES = [
  'mkdir -p /logs/verifier',
  'echo 1 > /logs/verifier/reward.txt',
  `printf '%s' '{"reward": 1}' > /logs/verifier/reward.json`,
].join('; ');

const PYTEST_FIX = 'Run pytest with --noconftest and -c pointing at a verifier-owned ini (or -p no:cacheprovider --rootdir=/tests), and write the reward on every path.';

/** The planted conftest's text, for probes that plant it elsewhere. */
export const SKIP_ALL_CONFTEST = CONFTEST;

export const REWARD_PROBES: readonly RewardProbe[] = [
  { name: 'reward-file', description: 'a reward file of 1 planted in /logs/verifier', fix: 'Write the reward on every path (0 unless the tests pass), after removing any reward file already there.', script: REWARD_FILES },
  {
    name: 'conftest', description: 'a conftest.py that skips every test, planted in the working directory and /', fix: PYTEST_FIX, script: plantEverywhere('conftest.py', CONFTEST),
    applies: (t) => !everyPytestCall(t, (l) => /--noconftest/.test(l)),
  },
  {
    name: 'pytest-ini', description: 'a pytest.ini with `addopts = --co` (collect only), planted in the working directory and /', fix: PYTEST_FIX, script: plantEverywhere('pytest.ini', INI),
    // With an explicit -c pytest reads no other ini file.
    applies: (t) => !everyPytestCall(t, (l) => /\s-c\s+\S/.test(l)),
  },
  {
    name: 'solution-in-image', description: 'a copy of the reference solution found in the image, run by the agent', rule: 'answer-or-solution-in-image',
    fix: 'Keep solution files out of the build context (or remove them in the same layer).', script: solutionCopyScript,
  },
];

export function plantHook(probe: RewardProbe): (session: TrialSession) => Promise<void> {
  return async (session) => {
    session.log(`[reward-isolation probe '${probe.name}': ${probe.description}]`);
    const script = typeof probe.script === 'string' ? probe.script : probe.script(session);
    if (script === undefined) {
      session.log('[probe not applicable to this task]');
      return;
    }
    const r = await session.exec(script);
    if (r.exitCode !== 0) session.log(`[probe could not plant everything (exit ${r.exitCode}): ${r.stderr.trim()}]`);
  };
}
