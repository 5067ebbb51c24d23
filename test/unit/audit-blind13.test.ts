/**
 * What the thirteenth blind held-out set showed (bench/accuracy/labels/blind13.json), one fixture per
 * cause, in the style of what was read: tasks written for a runtime of their own that brings VM or
 * bare-metal machines (`[environment] type = "cloudlab"`, setup scripts in environment/, no Dockerfile), and
 * a verifier that runs pytest through a variable (`"$PYTEST" /tests/test_outputs.py`), and a `[task]` name
 * that current Harbor's package validation rejects.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';

const TOML = (env: string): string => `version = "1.0"\n\n[verifier]\ntimeout_sec = 300.0\n\n[agent]\ntimeout_sec = 1200.0\n\n[environment]\n${env}build_timeout_sec = 1800.0\n\n[[environment.nodes]]\nname = "node0"\nhost = "node0.cluster.example"\n`;
const NO_DOCKER = { 'environment/Dockerfile': null, 'environment/data/orders.csv': null, 'environment/setup.sh': '#!/bin/bash\nsystemctl restart cassandra\n', 'environment/bootstrap.sh': '#!/bin/bash\napt-get install -y cassandra=4.1.5\n' };

const CASES: readonly Case[] = [
  { name: 'a task whose [environment] type names a runtime of its own (`type = "cloudlab"`) and ships setup scripts, no Dockerfile: a note, not an error', base: 'clean-harbor', rules: ['missing-environment'],
    files: { ...NO_DOCKER, 'task.toml': TOML('type = "cloudlab"\n') }, want: ['missing-environment info 9'] },
  { name: '… `type = "docker"` is Harbor\'s own: without a Dockerfile it is still an error', base: 'clean-harbor', rules: ['missing-environment'],
    files: { ...NO_DOCKER, 'task.toml': TOML('type = "docker"\n') }, want: ['missing-environment error 9'] },
  { name: '… and so is the same task with no type at all', base: 'clean-harbor', rules: ['missing-environment'],
    files: { ...NO_DOCKER, 'task.toml': TOML('') }, want: ['missing-environment error 9'] },
  { name: 'an environment named from elsewhere (`definition = "application/shared-survey-form"`, blind14): a note', base: 'clean-harbor', rules: ['missing-environment'],
    files: { 'environment/Dockerfile': null, 'environment/data/orders.csv': null, 'task.toml': TOML('definition = "application/shared-survey-form"\n') }, want: ['missing-environment info 9'] },
  // [task] is Harbor's registry package: `name` in org/name form, required.
  { name: '`[task] name = "count-files"` (no org/) fails current Harbor\'s package validation: a warning at the name', base: 'clean-harbor', rules: ['config-invalid-value'],
    files: { 'task.toml': 'version = "1.0"\n\n[task]\nname = "count-files"\ndescription = "Count the files"\n\n[agent]\ntimeout_sec = 600.0\n' }, want: ['config-invalid-value warning 4'] },
  { name: '… `name = "acme/count-files"` is Harbor\'s form: nothing reported', base: 'clean-harbor', rules: ['config-invalid-value'],
    files: { 'task.toml': 'version = "1.0"\n\n[task]\nname = "acme/count-files"\n\n[agent]\ntimeout_sec = 600.0\n' }, want: [] },
  { name: '… a [task] table of the author\'s own metadata, with no name, is rejected too: a warning at [task]', base: 'clean-harbor', rules: ['config-invalid-value'],
    files: { 'task.toml': 'version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n\n[task]\nsimulation_tool = "icarus"\n' }, want: ['config-invalid-value warning 6'] },
  // input-path-mismatch (fourteenth set): inputs read where the image does not put them.
  { name: 'solution and tests read /app/orders.csv while the image copies it to /app/data/orders.csv: the oracle fails', base: 'clean-harbor', rules: ['input-path-mismatch'],
    files: { 'solution/solve.sh': '#!/bin/bash\nset -e\nawk -F, \'NR>1{n++} END{print n}\' /app/orders.csv > /app/count.txt\n', 'tests/test_outputs.py': 'def test_count():\n    n = sum(1 for _ in open("/app/orders.csv")) - 1\n    assert open("/app/count.txt").read().strip() == str(n)\n' },
    want: ['input-path-mismatch warning 2'] },
  { name: '… quiet when the solution puts the file there first (`cp /app/data/orders.csv /app/orders.csv`)', base: 'clean-harbor', rules: ['input-path-mismatch'],
    files: { 'solution/solve.sh': '#!/bin/bash\nset -e\ncp /app/data/orders.csv /app/orders.csv\nawk -F, \'NR>1{n++} END{print n}\' /app/orders.csv > /app/count.txt\n', 'tests/test_outputs.py': 'def test_count():\n    n = sum(1 for _ in open("/app/orders.csv")) - 1\n    assert open("/app/count.txt").read().strip() == str(n)\n' },
    want: [] },
  { name: '… and when the path is the agent\'s output the tests read (written by the solution through a name)', base: 'clean-harbor', rules: ['input-path-mismatch'],
    files: { 'environment/data/totals.json': '{}\n', 'solution/solve.sh': '#!/bin/bash\nset -e\nOUT=/app/totals.json\necho \'{"north": 1}\' > "$OUT"\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    assert json.load(open("/app/totals.json")) == {"north": 1}\n' },
    want: [] },
  // Harbor's artifacts are a list (fifteenth set).
  { name: 'an `[artifacts]` table (`paths = [...]`) fails current Harbor\'s TaskConfig: a warning', base: 'clean-harbor', rules: ['config-invalid-value'],
    files: { 'task.toml': 'version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n\n[artifacts]\npaths = ["/app/report.json"]\n' }, want: ['config-invalid-value warning 6'] },
  { name: '… `artifacts = ["/app/report.json"]` is Harbor\'s form', base: 'clean-harbor', rules: ['config-invalid-value'],
    files: { 'task.toml': 'version = "1.0"\nartifacts = ["/app/report.json"]\n\n[agent]\ntimeout_sec = 600.0\n' }, want: [] },
  // The verifier's pytest named through a variable set once to a literal path.
  { name: '`"$PYTEST" /tests/test_outputs.py` after `PYTEST="/opt/verifier-venv/bin/pytest"` is a pytest run (planted conftest reaches it)', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'tests/test.sh': '#!/bin/bash\nPYTEST="/opt/verifier-venv/bin/pytest"\n"$PYTEST" --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    want: ['pytest-collection-hijack warning 3'] },
  { name: '… a variable set from `$(command -v pytest)` is not known statically: nothing is claimed', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'tests/test.sh': '#!/bin/bash\nPYTEST="$(command -v pytest)"\n"$PYTEST" /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    want: [] },
];

describeCases('audit on the thirteenth blind set\'s causes: one fixture per cause', CASES);
