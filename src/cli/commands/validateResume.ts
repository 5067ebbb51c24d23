import { DEFAULT_MAX_INFRA_RATE } from '../../core/results/infraRate';
import { loadRunTasks, resolveRunDir, resumableParameters } from '../../core/sandbox/resume';
import type { ContainerRuntime } from '../../core/sandbox/runtime';
import { openValidationResume, type ValidationResume } from '../../core/validate/resume';
import { boolOpt, stringOpt, type CliIo, type ParsedArgs } from '../command';
import { checkConflicts, type SemanticFlag } from './runResume';

/**
 * `taskwright validate --resume RUN`: the validation's own options come from its run.json; a flag
 * that would change which checks run or how they are judged and differs from it is refused (the
 * same rule as `run --resume`). `--concurrency`, `--format` and `--verbose` may differ.
 */
const VALIDATE_FLAGS: readonly SemanticFlag[] = [
  { flag: 'runs', of: (p) => (p.attempts === undefined ? undefined : String(p.attempts)), numeric: true },
  { flag: 'retries', of: (p) => String(p.retries), numeric: true },
  { flag: 'mutants', of: (p) => (p.validate ? String(p.validate.mutants) : undefined), numeric: true },
  { flag: 'seed', of: (p) => (p.validate ? String(p.validate.seed) : undefined), numeric: true },
  { flag: 'no-probes', of: (p) => String(p.validate?.probes === false), switch: true },
  { flag: 'no-behaviour', of: (p) => String(p.validate?.behaviour === false), switch: true },
  { flag: 'max-infra-rate', of: (p) => String(p.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE), numeric: true },
];

/** Throws ResumeError when the run cannot be resumed, UsageError on conflicting flags; undefined when the engine is not ready. */
export async function prepareValidateResume(args: ParsedArgs, io: CliIo, runtime: ContainerRuntime, resultsDir: string, engineReady: () => Promise<boolean>): Promise<(ValidationResume & { readonly changed: readonly string[] }) | undefined> {
  const dir = resolveRunDir(stringOpt(args, 'resume') as string, resultsDir, io.cwd);
  const params = resumableParameters(dir, 'validate');
  // Checked before anything is touched: a refused resume leaves the run folder as it was.
  await checkConflicts(args, io, params, VALIDATE_FLAGS);
  const loaded = await loadRunTasks(params, io.cwd, boolOpt(args, 'allow-changed-tasks'));
  if (!(await engineReady())) return undefined;
  return { ...(await openValidationResume(runtime, dir, loaded)), changed: loaded.changed };
}
