import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Ajv from 'ajv-draft-04';
import { main } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/command';
import { jsonHead, taskJson, type AuditJson } from '../../src/cli/audit/jsonWriter';
import type { ReportTask, RunSummary } from '../../src/cli/audit/model';
import { auditTaskFingerprinted } from '../../src/core/audit/index';
import { BaselineIndex, parseBaseline } from '../../src/core/audit/baseline';
import { ConventionCounter } from '../../src/core/audit/conventions';
import { lineFingerprint } from '../../src/core/audit/fingerprint';
import { datasetOf, discoverTaskDirs } from '../../src/core/discovery/index';
import { loadTask } from '../../src/core/loader/index';
import { FIXTURES } from './audit-helpers';
import { tempDir } from '../support/tempDir';

const ROOT = path.resolve(__dirname, '../../..');
const SCHEMA = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'sarif/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;

async function run(argv: string[], cwd = ROOT): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => { out += t.endsWith('\n') ? t : `${t}\n`; }, err: (t) => { err += `${t}\n`; }, cwd, env: {}, signal: new AbortController().signal };
  const code = await main(argv, io);
  return { code, out, err };
}

/** The masked pytest line (pipeline-status-masked, an error) is line 3 of this verifier. */
const MASKED = '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/log\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
const UNKNOWN_KEY = (toml: string): string => toml.replace('[verifier]\n', '[verifier]\nfavourite_colour = "teal"\n');

interface SarifResult { ruleId: string; level: string; baselineState?: string; locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } } }[]; relatedLocations?: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }
interface SarifLog { runs: { tool: { driver: { informationUri: string; rules: { id: string; helpUri: string }[] } }; results: SarifResult[] }[] }

function validSarif(text: string): SarifLog {
  const log = JSON.parse(text) as SarifLog;
  const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, logger: false }).compile(SCHEMA);
  assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
  return log;
}

/** A temp folder `ds/` of `n` copies of the clean Harbor fixture, each edited by `edit(i, files)`. */
function dataset(n: number, edit: (i: number) => Record<string, string>): string {
  const root = tempDir('tw-report-');
  for (let i = 1; i <= n; i++) {
    const dest = path.join(root, 'ds', `task-${i}`);
    fs.cpSync(path.join(FIXTURES, 'clean-harbor'), dest, { recursive: true });
    for (const [rel, text] of Object.entries(edit(i))) fs.writeFileSync(path.join(dest, rel), text);
  }
  return root;
}

const TOML = fs.readFileSync(path.join(FIXTURES, 'clean-harbor/task.toml'), 'utf8');

void describe('taskwright audit reports (conventions, baselines, SARIF, severities)', () => {
  let conv = '';
  let info = '';
  before(() => {
    // Six tasks share the masked line (a dataset convention); task-1 also has an info-level finding.
    conv = dataset(6, (i) => ({ 'tests/test.sh': MASKED, ...(i === 1 ? { 'task.toml': UNKNOWN_KEY(TOML) } : {}) }));
    info = dataset(1, () => ({ 'task.toml': UNKNOWN_KEY(TOML) }));
  });
  after(() => {
    for (const d of [conv, info]) fs.rmSync(d, { recursive: true, force: true });
  });

  void it('shows a finding repeated across most of a dataset once, with its count; --expand and JSON keep each task\'s', async () => {
    const text = await run(['audit', 'ds'], conv);
    assert.equal(text.code, 1);
    assert.equal(text.out.match(/pipeline-status-masked/g)?.length, 1, text.out);
    assert.match(text.out, /Dataset conventions/);
    assert.match(text.out, /6 of 6 tasks {2}tests\/test\.sh:3 {2}error {2}pipeline-status-masked .*\(e\.g\. ds\/task-1\/tests\/test\.sh:3\)/);
    assert.match(text.out, /ds\/task-2 \(harbor\) {2}\+1 dataset convention \(below\)/);
    assert.match(text.out, /ds\/task-1\/task\.toml:\d+:\d+ {2}info {2}config-unknown-key/, 'a finding of one task stays under it');
    assert.match(text.out, /6 tasks: 6 error\(s\), 0 warning\(s\), 1 info/);
    const expanded = await run(['audit', 'ds', '--expand'], conv);
    assert.equal(expanded.out.match(/pipeline-status-masked .*\[convention\]/g)?.length, 6);
    const doc = JSON.parse((await run(['audit', 'ds', '--format', 'json'], conv)).out) as AuditJson;
    assert.equal(doc.conventions.length, 1);
    assert.deepEqual({ ...doc.conventions[0], message: undefined }, { dataset: 'ds', rule: 'pipeline-status-masked', file: 'tests/test.sh', fp: lineFingerprint('pytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/log'), severity: 'error', message: undefined, line: 3, count: 6, tasks: 6 });
    for (const t of doc.tasks) {
      const masked = t.findings.filter((f) => f.rule === 'pipeline-status-masked');
      assert.equal(masked.length, 1);
      assert.equal(masked[0]?.convention, 0);
    }
    assert.equal(doc.tasks[0]?.findings.find((f) => f.rule === 'config-unknown-key')?.convention, null);
  });

  void it('does not group a finding shared by too few tasks (under 5, or not more than half)', async () => {
    const few = dataset(4, () => ({ 'tests/test.sh': MASKED }));
    const half = dataset(10, (i): Record<string, string> => (i <= 5 ? { 'tests/test.sh': MASKED } : {}));
    try {
      assert.equal((JSON.parse((await run(['audit', 'ds', '--format', 'json'], few)).out) as AuditJson).conventions.length, 0);
      assert.equal((JSON.parse((await run(['audit', 'ds', '--format', 'json'], half)).out) as AuditJson).conventions.length, 0);
    } finally {
      fs.rmSync(few, { recursive: true, force: true });
      fs.rmSync(half, { recursive: true, force: true });
    }
  });

  void it('never counts info for --fail-on warning; SARIF level note; --min-severity drops it', async () => {
    assert.equal((await run(['audit', 'ds'], info)).code, 0);
    assert.equal((await run(['audit', 'ds', '--fail-on', 'warning'], info)).code, 0);
    assert.equal((await run(['audit', 'ds', '--fail-on', 'info'], info)).code, 1);
    const log = validSarif((await run(['audit', 'ds', '--format', 'sarif'], info)).out);
    const results = log.runs[0]?.results ?? [];
    assert.deepEqual(results.map((r) => [r.ruleId, r.level]), [['config-unknown-key', 'note']]);
    const min = validSarif((await run(['audit', 'ds', '--format', 'sarif', '--min-severity', 'warning'], info)).out);
    assert.deepEqual(min.runs[0]?.results, []);
    const text = await run(['audit', 'ds', '--min-severity', 'warning'], info);
    assert.doesNotMatch(text.out, /config-unknown-key/);
    assert.equal((await run(['audit', 'ds', '--min-severity', 'often'], info)).code, 2);
  });

  void it('a baseline silences its findings even after edits elsewhere in the file, and reports new ones', async () => {
    const root = dataset(1, () => ({ 'tests/test.sh': MASKED }));
    const task = path.join(root, 'ds', 'task-1');
    try {
      assert.equal((await run(['audit', 'ds', '--write-baseline', 'baseline.json', '--fail-on', 'never'], root)).code, 0);
      const base = JSON.parse(fs.readFileSync(path.join(root, 'baseline.json'), 'utf8')) as { version: number; findings: { rule: string; file: string; fp: string }[] };
      assert.equal(base.version, 1);
      assert.ok(base.findings.some((f) => f.rule === 'pipeline-status-masked' && f.file === 'ds/task-1/tests/test.sh'));
      // Lines above the finding move it down two lines: it is still the baselined one.
      fs.writeFileSync(path.join(task, 'tests/test.sh'), MASKED.replace('#!/bin/bash\n', '#!/bin/bash\n# verifier for the orders task\nset -u\n'));
      const quiet = await run(['audit', 'ds', '--baseline', 'baseline.json'], root);
      assert.equal(quiet.code, 0, quiet.out);
      assert.doesNotMatch(quiet.out, /pipeline-status-masked/);
      assert.match(quiet.out, /in the baseline not shown/);
      // From a subfolder the same baseline matches (paths are relative to the baseline's folder).
      assert.equal((await run(['audit', '.', '--baseline', '../baseline.json'], path.join(root, 'ds'))).code, 0);
      // A second masked line is new; the first stays silenced.
      fs.appendFileSync(path.join(task, 'tests/test.sh'), 'pytest -rA /tests/test_outputs.py | tee -a /logs/verifier/log2\nif [ $? -ne 0 ]; then echo 0 > /logs/verifier/reward.txt; fi\n');
      const loud = await run(['audit', 'ds', '--baseline', 'baseline.json', '--format', 'sarif'], root);
      assert.equal(loud.code, 1);
      const results = validSarif(loud.out).runs[0]?.results ?? [];
      const masked = results.filter((r) => r.ruleId === 'pipeline-status-masked');
      assert.deepEqual(masked.map((r) => [r.locations[0]?.physicalLocation.region?.startLine, r.baselineState]), [[7, 'new']]);
      // --show-baselined: the silenced one as unchanged; a baselined finding that went away as absent.
      fs.writeFileSync(path.join(task, 'tests/test.sh'), MASKED.replace('| tee /logs/verifier/log', ''));
      const all = validSarif((await run(['audit', 'ds', '--baseline', 'baseline.json', '--format', 'sarif', '--show-baselined'], root)).out).runs[0]?.results ?? [];
      assert.deepEqual(all.filter((r) => r.ruleId === 'pipeline-status-masked').map((r) => r.baselineState), ['absent']);
      assert.ok(all.every((r) => r.baselineState === 'unchanged' || r.baselineState === 'absent' || r.baselineState === 'new'));
      fs.writeFileSync(path.join(root, 'bad.json'), '{"findings": 3}');
      assert.equal((await run(['audit', 'ds', '--baseline', 'bad.json'], root)).code, 2);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  void it('SARIF locations are relative to %SRCROOT% (never absolute or ../), help pages are https', async () => {
    // Tasks outside the working directory, named by absolute path: the root moves up to hold them.
    const log = validSarif((await run(['audit', path.join(conv, 'ds'), '--format', 'sarif'], ROOT)).out);
    const r0 = log.runs[0];
    assert.ok(r0 && r0.results.length > 0);
    const uris = r0.results.flatMap((r) => [...r.locations, ...(r.relatedLocations ?? [])].map((l) => l.physicalLocation.artifactLocation));
    for (const u of uris) {
      assert.equal(u.uriBaseId, '%SRCROOT%');
      assert.ok(!u.uri.startsWith('/') && !u.uri.startsWith('..') && !/^[a-z]+:/i.test(u.uri), u.uri);
    }
    assert.ok(uris.some((u) => u.uri === 'task-1/tests/test.sh'), JSON.stringify(uris.slice(0, 3)));
    assert.match(r0.tool.driver.informationUri, /^https:\/\//);
    assert.ok(r0.tool.driver.rules.every((x) => x.helpUri.startsWith('https://') && x.helpUri.endsWith(`/${x.id}.md`)));
    const custom = validSarif((await run(['audit', 'ds', '--format', 'sarif', '--docs-url', 'https://docs.example.org/rules/'], conv)).out);
    assert.equal(custom.runs[0]?.tool.driver.rules[0]?.helpUri, `https://docs.example.org/rules/${custom.runs[0]?.tool.driver.rules[0]?.id}.md`);
    assert.equal((await run(['audit', 'ds', '--format', 'sarif', '--docs-url', 'file:///tmp/docs'], conv)).code, 2);
  });

  void it('the streamed reports equal a single in-memory pass, on worker threads and in one thread', async () => {
    const heldout = path.resolve(FIXTURES, '../audit-heldout');
    const streamed = await run(['audit', heldout, '--format', 'json', '--jobs', '2', '--fail-on', 'never']);
    const single = await run(['audit', heldout, '--format', 'json', '--jobs', '1', '--fail-on', 'never']);
    assert.equal(streamed.out, single.out);
    // The reference: every task loaded and audited here, held in memory, stringified whole.
    const dirs = await discoverTaskDirs([heldout]);
    assert.ok(dirs.length >= 20);
    const conventions = new ConventionCounter();
    const tasks: ReportTask[] = [];
    for (const dir of dirs) {
      const task = await loadTask(dir);
      const findings = (await auditTaskFingerprinted(task)).map(({ fix: _fix, ...f }) => f);
      const dataset = datasetOf(dir, [heldout]);
      conventions.add(dataset, findings.map((f) => ({ rule: f.rule, severity: f.severity, file: f.file ?? null, line: f.range ? f.range.start.line + 1 : null, fp: f.fp, message: f.message })));
      tasks.push({ path: dir, rel: '', dataset, id: task.id, format: task.format, configFile: task.configFile, findings });
    }
    const summary: RunSummary = { tasks: dirs.length, conventions, usedRules: new Set(), absent: undefined, baselineRel: undefined, baselined: 0 };
    assert.equal(streamed.out, `${JSON.stringify(jsonHead(summary, tasks.map((t) => taskJson(t, summary))), null, 2)}\n`);
    for (const format of ['text', 'sarif']) {
      const a = await run(['audit', heldout, '--format', format, '--jobs', '2', '--fail-on', 'never']);
      const b = await run(['audit', heldout, '--format', format, '--jobs', '1', '--fail-on', 'never']);
      assert.equal(a.out, b.out, format);
    }
  });

  void it('the editor\'s baseline index hides accepted findings of a task after an edit above them, counting copies', async () => {
    const root = dataset(1, () => ({ 'tests/test.sh': MASKED }));
    const task = path.join(root, 'ds', 'task-1');
    try {
      await run(['audit', 'ds', '--write-baseline', 'b.json', '--fail-on', 'never'], root);
      const index = new BaselineIndex(parseBaseline(fs.readFileSync(path.join(root, 'b.json'), 'utf8'), 'b.json'), root);
      fs.writeFileSync(path.join(task, 'tests/test.sh'), MASKED.replace('#!/bin/bash\n', '#!/bin/bash\n\n# moved down\n'));
      const moved = await auditTaskFingerprinted(await loadTask(task));
      assert.ok(moved.some((f) => f.rule === 'pipeline-status-masked' && f.range?.start.line === 4));
      assert.deepEqual(index.newFindings(task, moved), []);
      // The same line twice: the baseline accepted one copy, the other is new.
      const twice = moved.flatMap((f) => (f.rule === 'pipeline-status-masked' ? [f, { ...f, range: { start: { line: 9, character: 0 }, end: { line: 9, character: 5 } } }] : [f]));
      assert.deepEqual(index.newFindings(task, twice).map((f) => [f.rule, f.range?.start.line]), [['pipeline-status-masked', 9]]);
      assert.throws(() => parseBaseline('{"version":1,"findings":[{"rule":"x"}]}', 'b.json'), /b\.json: finding 1 lacks rule, file or fp/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
