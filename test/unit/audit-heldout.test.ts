import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import type { Finding } from '../../src/core/model/finding';
import { loadTask } from '../../src/core/loader/index';
import { tempDir } from '../support/tempDir';

/**
 * The held-out corpus: tasks written in the style of public Terminal-Bench 1 / Harbor tasks that the
 * rules were not developed against. Each `<task>.expected.json` (outside the task folder, so it is not
 * part of the task) lists the planted defects; a task with none must raise no warning or error.
 */
const CORPUS = path.resolve(__dirname, '../../../test/fixtures/audit-heldout');

interface Expected {
  readonly task: string;
  readonly clean: boolean;
  readonly findings: readonly { rule: string; class: string; file: string; line: number; why: string }[];
}

const manifests: Expected[] = fs.readdirSync(CORPUS).filter((n) => n.endsWith('.expected.json')).sort()
  .map((n) => JSON.parse(fs.readFileSync(path.join(CORPUS, n), 'utf8')) as Expected);

async function audit(dir: string): Promise<Finding[]> {
  return auditTask(await loadTask(dir), { ignoreConfigFiles: true });
}

const loud = (list: readonly Finding[]) => list.filter((f) => f.severity !== 'info');
const where = (f: Finding) => `${f.rule} ${f.class} ${f.file ?? '-'}:${f.range ? f.range.start.line + 1 : '-'}`;

void describe('audit: held-out corpus', () => {
  void it('has at least 12 tasks in both formats, half of them clean', () => {
    assert.ok(manifests.length >= 12, `only ${manifests.length} manifests`);
    const clean = manifests.filter((m) => m.clean).length;
    assert.ok(clean >= 6 && manifests.length - clean >= 6, `${clean} clean of ${manifests.length}`);
    for (const m of manifests) {
      assert.ok(fs.existsSync(path.join(CORPUS, m.task)), `${m.task} has a manifest but no folder`);
      assert.equal(m.clean, m.findings.length === 0, m.task);
    }
    assert.ok(manifests.some((m) => fs.existsSync(path.join(CORPUS, m.task, 'task.yaml'))));
    assert.ok(manifests.some((m) => fs.existsSync(path.join(CORPUS, m.task, 'task.toml'))));
  });

  for (const m of manifests) {
    void it(`${m.task}: ${m.clean ? 'no warning or error' : 'finds every planted defect, and nothing else loud'}`, async () => {
      const findings = await audit(path.join(CORPUS, m.task));
      // Every planted defect: right rule, class, file and 1-based line.
      for (const e of m.findings) {
        const hit = findings.find((f) => f.rule === e.rule && f.file === e.file && f.range !== undefined && f.range.start.line + 1 === e.line);
        assert.ok(hit, `${m.task}: missed ${e.rule} at ${e.file}:${e.line} (${e.why}); got ${findings.map(where).join('; ') || 'nothing'}`);
        assert.equal(hit.class, e.class, `${m.task}: ${e.rule} class`);
      }
      // Precision: no warning or error beyond the planted ones (clean tasks: none at all).
      const planted = new Set(m.findings.map((e) => `${e.rule} ${e.file}:${e.line}`));
      const extra = loud(findings).filter((f) => !planted.has(`${f.rule} ${f.file}:${f.range ? f.range.start.line + 1 : '-'}`));
      assert.deepEqual(extra.map(where), [], `${m.task}: unexpected findings`);
      if (m.clean) assert.deepEqual(findings.map(where), [], `${m.task}: a clean task should not even get info findings`);
    });
  }
});

/** Copies a corpus task to a temp folder, applies edits (null deletes), audits it and cleans up. */
async function auditVariant(task: string, files: Record<string, string | null>): Promise<Finding[]> {
  const tmp = tempDir('tw-heldout-');
  const dir = path.join(tmp, task);
  try {
    fs.cpSync(path.join(CORPUS, task), dir, { recursive: true });
    for (const [rel, text] of Object.entries(files)) {
      if (text === null) fs.rmSync(path.join(dir, rel), { force: true });
      else fs.writeFileSync(path.join(dir, rel), text);
    }
    return await audit(dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const TB1_GUARD = '#!/bin/bash\n\nif [ "$PWD" = "/" ]; then\n    exit 1\nfi\n\n';

void describe('audit: the held-out fixes stay precise', () => {
  const hijack = (list: readonly Finding[]) => list.filter((f) => f.rule === 'pytest-collection-hijack').map(where);

  void it('pytest-collection-hijack: quiet when python -m pytest runs from the tests folder or with -P', async () => {
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}cd "$TEST_DIR"\npython3 -m pytest --noconftest test_outputs.py -rA\n` })), []);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}python3 -P -m pytest --noconftest $TEST_DIR/test_outputs.py -rA\n` })), []);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}pytest --noconftest $TEST_DIR/test_outputs.py -rA\n` })), []);
  });

  void it('pytest-collection-hijack: the verifier\'s own tests without --noconftest or -c read an ini planted in /', async () => {
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}pytest $TEST_DIR/test_outputs.py -rA\n` })), ['pytest-collection-hijack misalignment run-tests.sh:7']);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"\npytest "$HERE/test_outputs.py" -rA\n` })), ['pytest-collection-hijack misalignment run-tests.sh:8']);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}pytest -c /dev/null $TEST_DIR/test_outputs.py -rA\n` })), []);
    // A project's own suite in the agent's checkout (SWE-bench style): relative targets are the agent's work.
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}cd "$REPO"\npytest -rA pkg/tests/test_io.py\n` })), []);
    // A non-root agent cannot write /.
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}pytest $TEST_DIR/test_outputs.py -rA\n`, Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN useradd -m agent\nWORKDIR /app\nUSER agent\n' })), []);
  });

  void it('pytest-collection-hijack: quiet when the working directory is not knowable', async () => {
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}cd "$SOMEWHERE"\npython3 -m pytest test_outputs.py -rA\n` })), []);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}[ -d /tests ] && cd /tests\npytest -rA\n` })), []);
  });

  void it('pytest-collection-hijack: fires when pytest collects the agent-writable working directory', async () => {
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}pytest -rA\n` })), ['pytest-collection-hijack misalignment run-tests.sh:7']);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}cp -r $TEST_DIR /app/tests\npytest tests/test_outputs.py -rA\n` })), ['pytest-collection-hijack misalignment run-tests.sh:8']);
    assert.deepEqual(hijack(await auditVariant('tb1-bad-weather-fetch', { 'run-tests.sh': `${TB1_GUARD}cd /tests\npytest --noconftest -rA\n` })), []);
  });

  const copied = (list: readonly Finding[]) => list.filter((f) => /^(solution|tests)-copied-into-image$/.test(f.rule)).map(where);

  void it('COPY . is quiet when .dockerignore keeps the solution and tests out', async () => {
    assert.deepEqual(copied(await auditVariant('tb1-bad-roman-numerals', { '.dockerignore': 'solution.sh\nrun-tests.sh\ntests/\n' })), []);
    assert.deepEqual(copied(await auditVariant('tb1-bad-roman-numerals', { '.dockerignore': '*\n!Dockerfile\n' })), []);
    // run-tests.sh alone says how the tests run, not what they check.
    assert.deepEqual(copied(await auditVariant('tb1-bad-roman-numerals', { '.dockerignore': 'solution.sh\ntests\n' })), []);
  });

  void it('COPY . is quiet when a later RUN deletes what it shipped, and reports what remains', async () => {
    const dockerfile = 'FROM ghcr.io/laude-institute/t-bench/python-3-13:20250620\n\nWORKDIR /app\n\nCOPY . /app/\nRUN rm -rf /app/tests /app/run-tests.sh\n';
    assert.deepEqual(copied(await auditVariant('tb1-bad-roman-numerals', { Dockerfile: dockerfile })), ['solution-copied-into-image misalignment Dockerfile:5']);
    assert.deepEqual(copied(await auditVariant('tb1-bad-roman-numerals', { Dockerfile: `${dockerfile}RUN rm /app/solution.sh\n` })), []);
  });

  const weak = (list: readonly Finding[]) => list.filter((f) => f.rule === 'weak-assertion').map(where);
  const invoiceTests = (name: string, extra: string) => `import json\n\n\ndef load_totals():\n    with open("/app/totals.json") as fh:\n        return json.load(fh)\n\n\ndef ${name}():\n    totals = load_totals()\n    assert totals is not None\n    assert isinstance(totals, dict)\n${extra}`;
  const contentTest = '\n\ndef test_acme():\n    assert load_totals()["acme"] == 26.48\n';

  // The name no longer matters: on 575 real findings, 571 fired only because a name "promised" values
  // beside tests that did check them (rewards are all-or-nothing, so those shape checks were harmless).
  void it('weak-assertion: a shape check beside value checks is quiet whatever its name', async () => {
    assert.deepEqual(weak(await auditVariant('tb1-bad-invoice-totals', { 'tests/test_outputs.py': invoiceTests('test_output_is_json_object', contentTest) })), []);
    assert.deepEqual(weak(await auditVariant('tb1-bad-invoice-totals', { 'tests/test_outputs.py': invoiceTests('test_totals_are_correct', contentTest) })), []);
    assert.deepEqual(weak(await auditVariant('tb1-bad-invoice-totals', { 'tests/test_outputs.py': invoiceTests('test_output_is_json_object', '') })), ['weak-assertion misalignment tests/test_outputs.py:9']);
  });
});
