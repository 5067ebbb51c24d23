/**
 * Fixtures of the test-side recall rules (issue 11, blind reading): grading by source text, expected
 * values recomputed from inputs the agent can rewrite, and where `no-reward-written` points. Written
 * in the style of such tasks (a Harbor task whose agent edits a small project under /app).
 */
import type { Files, RuleCase } from './audit-cases';

/** A Harbor task asking for a fix in /app/src/slugify.py; tests as given by each case. */
export const ST_INSTRUCTION = 'The helper in `/app/src/slugify.py` keeps accents and double dashes. Make `slugify(text)` return\nlowercase ASCII words joined by single dashes, for example `slugify("Crème  Brûlée") == "creme-brulee"`.\n';
export const ST_TEST = (body: string): string => `import re\nimport subprocess\nfrom pathlib import Path\n\nSRC = Path("/app/src/slugify.py")\n\n\n${body}`;
export const ST_TEXT_BODY = 'def test_uses_unicodedata():\n    src = SRC.read_text()\n    assert "unicodedata.normalize" in src\n    assert re.search(r"def slugify\\(text: str\\) -> str:", src)\n';
export const ST_FILES = (test: string): Files => ({
  'instruction.md': ST_INSTRUCTION,
  'tests/test_outputs.py': test,
  'solution/solve.sh': '#!/bin/bash\ncat > /app/src/slugify.py <<\'PY\'\nimport re\nimport unicodedata\n\n\ndef slugify(text: str) -> str:\n    t = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()\n    return re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-")\nPY\n',
});

/** The clean Harbor fixture with the tests recomputing the totals from the agent's own /app/data copy. */
export const RC_TEST = 'import csv\nimport json\nfrom pathlib import Path\n\nAPP = Path("/app")\nORDERS = APP / "data" / "orders.csv"\n\n\ndef _expected():\n    totals = {}\n    with ORDERS.open() as fh:\n        for row in csv.DictReader(fh):\n            totals[row["region"]] = totals.get(row["region"], 0.0) + float(row["amount"])\n    return totals\n\n\ndef test_totals_match():\n    got = json.loads((APP / "totals.json").read_text())\n    assert got == _expected()\n';

/** A log-summary task (the log shipped at /app/access.log) whose tests recompute the answer from a given log. */
const LOG_INSTRUCTION = 'Summarise the web server log at `/app/access.log`: write `/app/report.json` with `total_requests`, `unique_ips` and `top_path`.\n';
const LOG_TEST = (log: string): string => `import json\nfrom collections import Counter\nfrom pathlib import Path\n\nLOG = Path("${log}")\n\n\ndef _expected():\n    lines = [l for l in LOG.read_text().splitlines() if l.strip()]\n    paths = Counter(l.split()[6] for l in lines)\n    return {"total_requests": len(lines), "unique_ips": len({l.split()[0] for l in lines}), "top_path": paths.most_common(1)[0][0]}\n\n\ndef test_report():\n    assert json.loads(Path("/app/report.json").read_text()) == _expected()\n`;
const LOG_LINE = '10.0.0.1 - - [01/Jan/2025:00:00:01 +0000] "GET /index.html HTTP/1.1" 200 512\n';

const KEYS_INSTRUCTION = 'Summarise `/app/data/orders.csv` into `/app/summary.json`, a JSON object with exactly two keys: `total` (the sum of `amount`) and `regions` (the number of distinct regions).\n';
const KEYS_TEST = (shape: string): string => `import json\n\n\ndef test_shape():\n    report = json.load(open("/app/summary.json"))\n    ${shape}\n\n\ndef test_values():\n    report = json.load(open("/app/summary.json"))\n    assert report["total"] == 19.5\n    assert report["regions"] == 2\n`;

export const RECALL_TEST_CASES: readonly RuleCase[] = [
  {
    // A server log is input data like a CSV: recomputing from the agent's copy lets it rewrite both sides.
    rule: 'expected-from-agent-writable-path', variant: 'recomputed from a shipped access log', base: 'clean-harbor',
    bad: { 'instruction.md': LOG_INSTRUCTION, 'environment/access.log': LOG_LINE, 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY access.log /app/access.log\n', 'tests/test_outputs.py': LOG_TEST('/app/access.log') },
    good: { 'instruction.md': LOG_INSTRUCTION, 'environment/access.log': LOG_LINE, 'tests/access.log': LOG_LINE, 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY access.log /app/access.log\n', 'tests/test_outputs.py': LOG_TEST('/tests/access.log') },
  },
  {
    rule: 'source-text-grading', base: 'clean-harbor',
    bad: ST_FILES(ST_TEST(ST_TEXT_BODY)),
    good: ST_FILES(ST_TEST('def test_slugify_behaviour():\n    out = subprocess.run(["python3", "-c", "import sys; sys.path.insert(0, \'/app/src\'); from slugify import slugify; print(slugify(\'Crème  Brûlée\'))"], capture_output=True, text=True, check=True)\n    assert out.stdout.strip() == "creme-brulee"\n')),
  },
  {
    // "exactly these keys" stated; the tests read the keys one by one, so extra keys pass.
    rule: 'stated-key-set-unchecked', base: 'clean-harbor',
    bad: { 'instruction.md': KEYS_INSTRUCTION, 'tests/test_outputs.py': KEYS_TEST('assert {"total", "regions"} <= report.keys()') },
    good: { 'instruction.md': KEYS_INSTRUCTION, 'tests/test_outputs.py': KEYS_TEST('assert set(report) == {"total", "regions"}') },
  },
];
