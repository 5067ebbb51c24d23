/**
 * verifier-runs-agent-writable-code inside Python tests, in the style of the generated tasks of the
 * twenty-fourth blind set: the test compares the agent's program with a reference program ("oracle",
 * "reference decoder") that the image's set-up left in /app, where the agent works as root.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf } from './audit-helpers';

const RULE = ['verifier-runs-agent-writable-code'];
const TEST = (setup: string, oracle: string): string => [
  'import random', 'import subprocess', '', setup, '', '',
  'def test_matches_reference():',
  `    oracle_path = ${oracle}`,
  '    for seed in range(20):',
  '        data = bytes(random.Random(seed).randrange(256) for _ in range(64))',
  '        want = subprocess.run([oracle_path], input=data, capture_output=True)',
  '        got = subprocess.run(["/app/decode.sh"], input=data, capture_output=True)',
  '        assert got.stdout == want.stdout',
  '',
].join('\n');

void describe('a Python test that takes its expected answer from an oracle the agent can replace', () => {
  void it('`oracle_path = "/app/reference_decoder"` run beside the agent\'s program: reported at the oracle\'s run', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': TEST('', '"/app/reference_decoder"') }, RULE), ['verifier-runs-agent-writable-code warning 11']);
  });
  void it('through a module-level name and an interpreter (`[sys.executable, ORACLE]`)', async () => {
    const t = ['import subprocess', 'import sys', '', 'ORACLE = "/app/oracle_parse.py"', '', '', 'def test_same():',
      '    want = subprocess.run([sys.executable, ORACLE, "in.bin"], capture_output=True)',
      '    got = subprocess.run(["/app/parse.sh", "in.bin"], capture_output=True)', '    assert got.stdout == want.stdout', ''].join('\n');
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': t }, RULE), ['verifier-runs-agent-writable-code warning 8']);
  });
  void it('an oracle shipped with the tests, one the test writes or builds from /tests, or a separate verifier: nothing', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': TEST('', '"/tests/reference_decoder"') }, RULE), []);
    const built = 'subprocess.run(["gcc", "/tests/ref_decoder.c", "-o", "/app/ref_decoder"], check=True)';
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': TEST(built, '"/app/ref_decoder"') }, RULE), []);
    const written = 'REF = "print(1)"\n\n\ndef setup_module():\n    with open("/app/reference_impl.py", "w") as f:\n        f.write(REF)';
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': TEST(written, '"/app/reference_impl.py"') }, RULE), []);
    const separate = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nenvironment_mode = "separate"\n\n[agent]\ntimeout_sec = 600.0\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'task.toml': separate, 'tests/Dockerfile': 'FROM python:3.12-slim-bookworm\n', 'tests/test_outputs.py': TEST('', '"/app/reference_decoder"') }, RULE), []);
  });
  void it('the agent\'s own program, with no word of an answer key in its name or binding, is what the test grades', async () => {
    const t = ['import subprocess', '', '', 'def test_decodes():', '    got = subprocess.run(["/app/decode.sh", "/app/in.bin"], capture_output=True)', '    assert got.stdout == b"ok\\n"', ''].join('\n');
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test_outputs.py': t }, RULE), []);
  });
});
