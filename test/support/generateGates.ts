import fs from 'node:fs';
import path from 'node:path';
import { auditTask } from '../../src/core/audit/index';
import type { Gates, ValidationOutcome } from '../../src/core/generate/gates';
import type { CheckName, CheckResult, CheckStatus } from '../../src/core/validate/types';
import { WRONG_SOLVE } from './generateDrafts';

export function checks(over: Partial<Record<CheckName, CheckStatus>> = {}): CheckResult[] {
  const names: CheckName[] = ['build', 'nop', 'oracle', 'agreement', 'reward-isolation', 'timeout-margin'];
  return names.map((name) => ({ name, status: over[name] ?? 'pass', runs: 2, detail: `${name} ${over[name] ?? 'pass'}` }));
}

export function outcome(over: Partial<Record<CheckName, CheckStatus>> = {}, logs: ValidationOutcome['logs'] = {}): ValidationOutcome {
  return { validation: { path: 't', id: 't', verdict: 'valid', checks: checks(over), findings: [], trials: [] }, logs };
}

/** Gates with the real static audit and a scripted validation: the oracle fails when solve.sh is the wrong one. */
export function fakeGates(calls: string[]): Gates {
  return {
    audit: (task, signal) => auditTask(task, { signal }),
    validate: async (task) => {
      calls.push(task.id);
      const solve = fs.readFileSync(path.join(task.dir, 'solution/solve.sh'), 'utf8');
      return solve === WRONG_SOLVE()
        ? outcome({ oracle: 'fail' }, { oracle: '== oracle verifier.stdout\nFAILED test_outputs.py::test_total_is_the_sum_of_the_numbers - AssertionError: 12 != 139' })
        : outcome();
    },
  };
}
