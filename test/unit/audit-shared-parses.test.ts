import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditContext } from '../../src/core/audit/context';
import { loadTask } from '../../src/core/loader/index';
import { analyseShell } from '../../src/core/parse/shell';
import { ensureParsers, parseSync } from '../../src/core/parse/treeSitter';
import { parseYamlShared } from '../../src/core/parse/yamlShared';
import { makeTask, removeTemp } from './audit-helpers';

// Parses shared across the tasks of a batch audit (issue 11): the same text gives the same (read-only)
// result, a different text its own, and a caller that changes what it got changes nothing for the next.
void describe('audit: parses shared by content', () => {
  void it('parses a YAML text once and hands the same document to every caller', () => {
    const text = 'services:\n  main:\n    build: .\n    volumes:\n      - ./tests:/tests:ro\n';
    const a = parseYamlShared(text);
    assert.equal(parseYamlShared(text), a);
    assert.deepEqual(a, { services: { main: { build: '.', volumes: ['./tests:/tests:ro'] } } });
    const other = parseYamlShared(`${text}  other:\n    image: x\n`);
    assert.notEqual(other, a);
    assert.deepEqual(Object.keys((other as { services: object }).services), ['main', 'other']);
  });

  void it('throws for bad YAML every time, as the parser does (failures are not cached)', () => {
    assert.throws(() => parseYamlShared('a: [1, 2\n'));
    assert.throws(() => parseYamlShared('a: [1, 2\n'));
  });

  void it('evicts the least recently used texts, so a long batch stays bounded', () => {
    const first = 'keep: 0\n';
    const kept = parseYamlShared(first);
    for (let i = 1; i <= 200; i++) parseYamlShared(`n: ${i}\n`);
    const again = parseYamlShared(first);
    assert.notEqual(again, kept, 'evicted after 200 other texts');
    assert.deepEqual(again, kept);
  });

  void it('analyses a shell tree once: the same tree (same text, parse cache) gives the same analysis', async () => {
    await ensureParsers();
    const text = '#!/bin/bash\nset -e\npip install pytest==8.0.0\npytest /tests/test_outputs.py -rA\n';
    const a = analyseShell(parseSync('bash', text));
    assert.equal(analyseShell(parseSync('bash', text)), a);
    assert.deepEqual(a.commands.map((c) => c.name), ['set', 'pip', 'pytest']);
    const b = analyseShell(parseSync('bash', `${text}echo done\n`));
    assert.notEqual(b, a);
    assert.equal(b.commands.length, 4);
  });

  void it('gives each composeMounts() caller its own copy of the mounts, read from one parse', async () => {
    const compose = 'services:\n  client:\n    build:\n      context: .\n    volumes:\n      - ./tests:/app/tests:ro\n      - ./data:/app/data\n';
    const dir = await makeTask('clean-tb1', { 'docker-compose.yaml': compose });
    try {
      const task = await loadTask(dir);
      const ctx = await AuditContext.create(task);
      const first = ctx.composeMounts();
      assert.deepEqual(first.map((m) => [m.source, m.target, m.readOnly]), [['./tests', '/app/tests', true], ['./data', '/app/data', false]]);
      first[0]!.target = '/elsewhere';
      first.pop();
      assert.deepEqual(ctx.composeMounts().map((m) => m.target), ['/app/tests', '/app/data']);
      assert.deepEqual(ctx.readOnlyMounts(), ['/app/tests']);
    } finally {
      await removeTemp(dir);
    }
  });
});
