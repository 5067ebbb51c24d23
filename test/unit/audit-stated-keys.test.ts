/**
 * What the fifteenth to twentieth blind sets showed in one assessment's log-report family, in the style
 * of what was read: an instruction that fixes the report's keys ("exactly these keys") with tests that
 * read the keys one by one and never check the set; and tests whose messages say "requests", which the
 * answer check once took for a `requests` call.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { findingsOf, makeTask, removeTemp } from './audit-helpers';

const RULE = ['stated-key-set-unchecked'];
const INSTRUCTION = [
  '# Access log summary', '',
  'Read `/app/access.log` and write `/app/report.json`.', '',
  'The report must be a single JSON object with exactly these three keys:',
  '- `total_requests`: the number of request lines (an integer)',
  '- `unique_ips`: the number of distinct client addresses (an integer)',
  '- `top_path`: the most requested path (a string)', '',
].join('\n');
const HEAD = ['import json', 'from pathlib import Path', '', 'REPORT = Path("/app/report.json")', '', '', 'def _load():', '    return json.loads(REPORT.read_text())', '', ''];
const PER_KEY = [
  'def test_total():', '    """The total requests match the log."""', '    assert _load()["total_requests"] == 6', '', '',
  'def test_ips():', '    assert _load().get("unique_ips") == 3', '', '',
  'def test_top():', '    assert _load()["top_path"] == "/index.html"', '',
];
const py = (...parts: string[][]): string => parts.flat().join('\n');

void describe('stated-key-set-unchecked: "exactly these keys", never checked', () => {
  void it('a subset check (`<=`): reported at that assert', async () => {
    const subset = ['def test_keys():', '    assert {"total_requests", "unique_ips", "top_path"} <= _load().keys()', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, subset, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 12']);
  });
  void it('no presence check: at the test that checks the object\'s type, else at the first keyed read', async () => {
    const typed = ['def test_is_object():', '    assert isinstance(_load(), dict)', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, typed, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 11']);
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 13']);
  });
  void it('a key-set or size check anywhere, or a whole-object comparison, is a check', async () => {
    for (const check of ['assert set(_load()) == {"total_requests", "unique_ips", "top_path"}', 'assert len(_load()) == 3', 'assert sorted(_load().keys()) == ["top_path", "total_requests", "unique_ips"]', 'assert _load() == EXPECTED']) {
      const keys = ['EXPECTED = {"total_requests": 6, "unique_ips": 3, "top_path": "/index.html"}', '', '', 'def test_keys():', `    ${check}`, '', ''];
      assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, keys, PER_KEY) }, RULE), [], check);
    }
  });
  void it('the sentence may wrap; a length check of another list is not a key-set check; a test named for the format is the place', async () => {
    const wrapped = INSTRUCTION.replace('with exactly these three keys:', 'with exactly\nthese three keys:');
    const other = ['def test_report_is_valid_json():', '    _load()', '', '', 'def test_log_untouched():', '    assert len(Path("/app/access.log").read_text().splitlines()) == 6', '    lines = [1, 2]', '    assert len(lines) == 2', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': wrapped, 'tests/test_outputs.py': py(HEAD, other, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 11']);
  });
  void it('the set checked through another name bound to the loaded object is a check', async () => {
    const keys = ['def test_keys():', '    with open(REPORT) as f:', '        obj = json.load(f)', '    assert set(obj) == {"total_requests", "unique_ips", "top_path"}', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, keys, PER_KEY) }, RULE), []);
  });
  void it('what a judged sample showed: a key set bound to a name and then compared, a helper\'s JSON compared whole, records compared by a canonical dump', async () => {
    const bound = ['def test_only_these():', '    data = _load()', '    got = set(data.keys())', '    assert got == {"total_requests", "unique_ips", "top_path"}', '', ''];
    const whole = ['def test_whole():', '    actual = _load()', '    assert actual == {"total_requests": 6, "unique_ips": 3, "top_path": "/index.html"}', '', ''];
    const canonical = ['def test_records():', '    assert json.dumps(_load(), sort_keys=True) == json.dumps(EXPECTED, sort_keys=True)', '', ''];
    for (const check of [bound, whole, canonical]) {
      assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, check, PER_KEY) }, RULE), [], check.join('\n'));
    }
  });
  void it('"exactly two keys" of another file (a YAML config read with yaml) is not the graded object\'s', async () => {
    const yamlStated = INSTRUCTION.replace('with exactly these three keys:', 'with these keys:') + '\nAlso save `/app/args.yaml` with exactly two keys: `filter` and `args`.\n';
    const cfg = ['import yaml', '', '', 'def test_args():', '    cfg = yaml.safe_load(open("/app/args.yaml"))', '    assert isinstance(cfg["filter"], str)', '    assert isinstance(cfg["args"], list)', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': yamlStated, 'tests/test_outputs.py': py(HEAD, cfg, PER_KEY) }, RULE), []);
  });
  void it('a presence loop (`for k in REQUIRED: assert k in data`) is the place; a nested record\'s key set checked through its loop is a check', async () => {
    const loop = ['def test_fields():', '    data = _load()', '    for k in ("total_requests", "unique_ips", "top_path"):', '        assert k in data', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, loop, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 14']);
    const records = INSTRUCTION.replace('The report must be a single JSON object with exactly these three keys:', 'The report is a JSON object with a `rows` list; each row has exactly these three keys:');
    const nested = ['def test_rows():', '    data = _load()', '    for row in data["rows"]:', '        assert set(row.keys()) == {"total_requests", "unique_ips", "top_path"}', '        assert row["total_requests"] >= 0', '        assert row.get("unique_ips") >= 0', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': records, 'tests/test_outputs.py': py(HEAD, nested) }, RULE), []);
  });
  void it('records reached through `enumerate(…)` count; a list of strings is no record (its `len` is no key-set check)', async () => {
    const records = INSTRUCTION.replace('The report must be a single JSON object with exactly these three keys:', 'The report is a JSON object with a `rows` list; each row has exactly these three keys:');
    const checked = ['def test_rows():', '    data = _load()', '    for i, row in enumerate(data["rows"]):', '        assert set(row.keys()) == {"total_requests", "unique_ips", "top_path"}', '        assert row["total_requests"] >= 0', '        assert row["unique_ips"] >= 0', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': records, 'tests/test_outputs.py': py(HEAD, checked) }, RULE), []);
    const strings = ['def test_notes():', '    data = _load()', '    for i, note in enumerate(data["notes"]):', '        assert len(note) > 0', '', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, strings, PER_KEY) }, RULE), ['stated-key-set-unchecked warning 19']);
  });
  void it('the message names the keys the statement fixes, not every key the tests read', async () => {
    const other = INSTRUCTION + '\nAlso log the run to `/app/run.json` with a `status` field.\n';
    const status = ['def test_run_log():', '    assert json.loads(Path("/app/run.json").read_text())["status"] == "ok"', '', ''];
    const dir = await makeTask('clean-harbor', { 'instruction.md': other, 'tests/test_outputs.py': py(HEAD, status, PER_KEY) });
    try {
      const found = (await auditTask(await loadTask(dir), { ignoreConfigFiles: true })).filter((f) => f.rule === 'stated-key-set-unchecked');
      assert.equal(found.length, 1);
      assert.match(found[0]?.message ?? '', /\(total_requests, unique_ips, top_path\)/);
    } finally {
      await removeTemp(dir);
    }
  });
  void it('an instruction that does not fix the keys, or tests that read fewer than two of its keys, are left alone', async () => {
    const loose = INSTRUCTION.replace('with exactly these three keys', 'with (at least) these keys');
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': loose, 'tests/test_outputs.py': py(HEAD, PER_KEY) }, RULE), []);
    const one = ['def test_total():', '    assert _load()["total_requests"] == 6', ''];
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': INSTRUCTION, 'tests/test_outputs.py': py(HEAD, one) }, RULE), []);
  });
});

void describe('answer-in-instruction: "requests" in a message is not a call', () => {
  void it('tests that only read the report, whose docstrings say "total requests", are still judged', async () => {
    const stated = INSTRUCTION.replace('- `top_path`: the most requested path (a string)', '- `top_path`: the most requested path (a string)\n\nExpected output:\n```json\n{"total_requests": 6, "unique_ips": 3, "top_path": "/index.html"}\n```');
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': stated, 'tests/test_outputs.py': py(HEAD, PER_KEY) }, ['answer-in-instruction']), ['answer-in-instruction warning 12']);
    const calls = py(['import requests', ''], HEAD, PER_KEY, ['', 'def test_live():', '    assert requests.get("http://localhost:8000/").status_code == 200', '']);
    assert.deepEqual(await findingsOf('clean-harbor', { 'instruction.md': stated, 'tests/test_outputs.py': calls }, ['answer-in-instruction']), []);
  });
});
