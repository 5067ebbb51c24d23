/**
 * Terminal-Bench 1's shared test scripts. Its harness copies `setup-uv-pytest.sh` and `run-uv-pytest.sh`
 * into `$TEST_DIR` beside the task's tests, so a `run-tests.sh` that runs `bash $TEST_DIR/run-uv-pytest.sh`
 * runs the harness's `uv run pytest $TEST_DIR/test_outputs.py -rA`, from the image's working folder.
 * A task that ships its own copy under tests/ is read from that copy instead (it is a verifier script).
 */
import { effectiveWords, type ShellCommand } from '../../parse/shell';
import type { AuditContext } from '../context';

/** What each shared script runs, as the words of one command. */
const HARNESS_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  'run-uv-pytest.sh': ['uv', 'run', 'pytest', '$TEST_DIR/test_outputs.py', '-rA'],
};

/** `bash $TEST_DIR/run-uv-pytest.sh`, `source "$TEST_DIR/x.sh"`, `/tests/x.sh`: the shared script a command runs. */
function sharedScriptOf(cmd: ShellCommand): string | undefined {
  const w = effectiveWords(cmd);
  const path = /^(ba|z|da)?sh$|^source$|^\.$/.test(w[0] ?? '') ? w.find((x, i) => i > 0 && !x.startsWith('-')) : w[0];
  const m = /^(?:\$\{?TEST_DIR\}?|\/tests)\/([\w.-]+\.sh)$/.exec(path ?? '');
  return m?.[1];
}

/**
 * The command a Terminal-Bench 1 verifier runs through a shared harness script, as words (undefined for
 * any other command, another format, or a script the task ships itself).
 */
export function harnessCommand(ctx: AuditContext, cmd: ShellCommand): readonly string[] | undefined {
  if (ctx.task.format !== 'tb1') return undefined;
  const name = sharedScriptOf(cmd);
  const words = name === undefined ? undefined : HARNESS_COMMANDS[name];
  if (name === undefined || !words || ctx.task.files.includes(`${ctx.testsDir}/${name}`)) return undefined;
  return words;
}
