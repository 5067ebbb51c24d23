/**
 * False findings the fifth blind held-out set met (bench/accuracy/labels/blind5.json), one fixture
 * per cause, in the style of what was read: the false case is quiet, the true case still fires.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf as found, type PatternCase as Case } from './audit-helpers';

const BLIND5_CASES: readonly Case[] = [
  { name: 'a `|| true` on a python3 -c that reads a config inside `$(…)` is not the test run\'s status', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nTIMEOUT="$(python3 -c "import json;print(json.load(open(\'/tests/config.json\'))[\'timeout\'])" 2>/dev/null || true)"\ntimeout "${TIMEOUT:-60}" pytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: [] },
  { name: 'the test run itself ending in `|| true` is still an error', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py || true\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: ['exit-code-masking error 3'] },
  { name: 'a non-root agent (`[agent] user`) cannot plant /pytest.ini: pytest on /tests is quiet; a root agent\'s is a warning', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nuser = "root"\n\n[agent]\ntimeout_sec = 600.0\nuser = "agent"\n', 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: [] },
  { name: '… and with `[agent] user = "root"` it is reported', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\nuser = "root"\n', 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: ['pytest-collection-hijack warning 3'] },
];

void describe('audit precision (blind5 false findings): one fixture per cause', () => {
  for (const c of BLIND5_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});
