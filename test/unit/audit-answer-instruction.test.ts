/**
 * answer-in-instruction, in the style of the log-report tasks the blind readings met (labels/blind4.json,
 * blind6.json): the instruction gives each expected value beside its key, and the tests only compare.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';

const STATED = 'Parse `/app/access.log` and write `/app/report.json`.\n\n1. The object has the keys `total_requests`, `unique_ips` and `top_path`.\n2. `total_requests` is `6`, `unique_ips` is `3`, and `top_path` is `/index.html`.\n';
const TABLE_TEST = 'import json\nfrom pathlib import Path\n\nEXPECTED = {\n    "total_requests": 6,\n    "unique_ips": 3,\n    "top_path": "/index.html",\n}\n\n\ndef test_values():\n    report = json.loads(Path("/app/report.json").read_text())\n    for key, value in EXPECTED.items():\n        assert report.get(key) == value\n';

const CASES: readonly Case[] = [
  { name: 'an EXPECTED table compared in a loop, each pair stated in the instruction: reported at the instruction line that gives the first value', base: 'clean-harbor', rules: ['answer-in-instruction'],
    files: { 'instruction.md': STATED, 'tests/test_outputs.py': TABLE_TEST }, want: ['answer-in-instruction warning 4'] },
  { name: 'one expected value left unstated: quiet (the agent still has to compute it)', base: 'clean-harbor', rules: ['answer-in-instruction'],
    files: { 'instruction.md': STATED.replace(', and `top_path` is `/index.html`', ''), 'tests/test_outputs.py': TABLE_TEST }, want: [] },
  { name: 'a value said apart from its key ("6 lines" elsewhere) is not stated: quiet', base: 'clean-harbor', rules: ['answer-in-instruction'],
    files: { 'instruction.md': 'The log has 6 lines from 3 hosts.\nWrite `total_requests`, `unique_ips` and `top_path` to `/app/report.json`; `/index.html` is a path.\n', 'tests/test_outputs.py': TABLE_TEST }, want: [] },
  { name: 'tests that import the agent\'s module test behaviour, not a copied value: quiet', base: 'clean-harbor', rules: ['answer-in-instruction'],
    files: { 'instruction.md': STATED, 'tests/test_outputs.py': `import sys\nsys.path.insert(0, "/app")\nfrom report import summarise\n${TABLE_TEST.replace('import json\n', 'import json\n\n')}` }, want: [] },
];

describeCases('answer-in-instruction', CASES);
