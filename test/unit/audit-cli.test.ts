import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Ajv from 'ajv-draft-04';
import { main } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/command';
import { FIXTURES, makeTask, removeTemp } from './audit-helpers';

const ROOT = path.resolve(__dirname, '../../..');

async function run(argv: string[], cwd = ROOT): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => { out += `${t}\n`; }, err: (t) => { err += `${t}\n`; }, cwd, env: {}, signal: new AbortController().signal };
  const code = await main(argv, io);
  return { code, out, err };
}

const BAD = { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/log\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' };

void describe('taskwright audit (CLI)', () => {
  void it('exits 0 on clean tasks and prints them grouped', async () => {
    const r = await run(['audit', 'test/fixtures/audit/clean-harbor', 'test/fixtures/audit/clean-tb1']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /test\/fixtures\/audit\/clean-harbor \(harbor\)\s+ok/);
    assert.match(r.out, /2 tasks: 0 error\(s\), 0 warning\(s\), 0 info/);
  });

  void it('exits 1 when a finding reaches --fail-on, 0 with --fail-on never, 2 on usage errors', async () => {
    const dir = await makeTask('clean-harbor', BAD);
    try {
      const text = await run(['audit', dir]);
      assert.equal(text.code, 1);
      assert.match(text.out, /tests\/test\.sh:3:1 {2}error {2}pipeline-status-masked/);
      assert.equal((await run(['audit', dir, '--fail-on', 'never'])).code, 0);
      assert.equal((await run(['audit', '--format', 'xml', dir])).code, 2);
      assert.equal((await run(['audit', '--fail-on', 'sometimes', dir])).code, 2);
      assert.equal((await run(['audit', path.join(dir, 'does-not-exist')])).code, 2);
    } finally {
      await removeTemp(dir);
    }
  });

  void it('prints the documented JSON shape with 1-based positions', async () => {
    const dir = await makeTask('clean-harbor', BAD);
    try {
      const r = await run(['audit', '--format', 'json', 'clean-harbor'], path.dirname(dir));
      const doc = JSON.parse(r.out) as { version: number; tool: string; tasks: { path: string; id: string; format: string; findings: Record<string, unknown>[] }[] };
      assert.equal(doc.version, 1);
      assert.equal(doc.tool, 'taskwright');
      assert.equal(doc.tasks[0]?.path, 'clean-harbor');
      assert.equal(doc.tasks[0]?.format, 'harbor');
      const f = doc.tasks[0]?.findings.find((x) => x['rule'] === 'pipeline-status-masked');
      assert.deepEqual(Object.keys(f ?? {}).sort(), ['class', 'column', 'convention', 'endColumn', 'endLine', 'file', 'fp', 'line', 'message', 'rule', 'severity']);
      assert.equal(f?.['file'], 'tests/test.sh');
      assert.equal(f?.['line'], 3);
      assert.equal(f?.['column'], 1);
      assert.equal(f?.['class'], 'misalignment');
    } finally {
      await removeTemp(dir);
    }
  });

  void it('prints SARIF 2.1.0 that validates against the schema', async () => {
    const dir = await makeTask('clean-harbor', { ...BAD, 'tests/test_outputs.py': 'from pathlib import Path\n\nOUT = Path("/app/report.md")\n\n\ndef test_report():\n    assert Path("/app/report.md").read_text() == "x"\n', 'solution/solve.sh': '#!/bin/bash\necho x > /app/report.md\n' });
    try {
      const r = await run(['audit', '--format', 'sarif', dir]);
      assert.equal(r.code, 1);
      const log = JSON.parse(r.out) as { version: string; runs: { tool: { driver: { rules: { id: string; helpUri: string }[] } }; results: { ruleId: string; relatedLocations?: unknown[]; locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region?: { startLine: number } } }[] }[] }[] };
      const schema = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'sarif/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
      const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
      const validate = ajv.compile(schema);
      assert.ok(!validate({ version: '2.1.0' }), 'the schema rejects a log without runs');
      assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
      assert.equal(log.version, '2.1.0');
      const run0 = log.runs[0];
      assert.ok(run0);
      const res = run0.results.find((x) => x.ruleId === 'pipeline-status-masked');
      assert.equal(res?.locations[0]?.physicalLocation.region?.startLine, 3);
      assert.equal(res?.locations[0]?.physicalLocation.artifactLocation.uriBaseId, '%SRCROOT%');
      assert.ok(run0.results.some((x) => x.ruleId === 'unstated-tested-file' && (x.relatedLocations?.length ?? 0) > 0));
      assert.ok(run0.tool.driver.rules.every((x) => x.helpUri.endsWith(`${x.id}.md`)));
    } finally {
      await removeTemp(dir);
    }
  });
});
