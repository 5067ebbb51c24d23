import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadTask } from '../../src/core/loader/index';
import type { Task } from '../../src/core/model/task';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/loader');

/** Real task files; each is mutated in place (through the overlay) while its task folder loads. */
const TARGETS = [
  'harbor/csv-summary/task.toml',
  'harbor/legacy-resources/task.toml',
  'harbor/multi-step-notes/task.toml',
  'harbor/csv-summary/instruction.md',
  'tb1/hello-world/task.yaml',
  'tb1/fix-permissions/task.yaml',
  'tb1/fix-permissions/solution.yaml',
].map((rel) => {
  const abs = path.join(FIXTURES, ...rel.split('/'));
  return { abs, dir: path.dirname(abs), text: readFileSync(abs, 'utf8') };
});

// Characters that matter to YAML and TOML syntax, plus a few that should never matter.
const SYNTAX = fc.constantFrom('"', "'", '"""', '[', ']', '[[', '{', '}', '=', ':', '- ', '|', '>', '#', '\\', '\n', '\r\n', '\t', ' ', '.', ',', '&a', '*a', '!!', '\u0000', '\uFEFF', '\uD800', '0x', '1e999', '-');

type Mutation =
  | { kind: 'delete'; at: number; len: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'swapLines'; a: number; b: number }
  | { kind: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(SYNTAX, fc.string({ maxLength: 6, unit: 'binary' })) }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function apply(text: string, m: Mutation): string {
  const n = text.length + 1;
  switch (m.kind) {
    case 'delete': { const at = m.at % n; return text.slice(0, at) + text.slice(at + m.len); }
    case 'insert': { const at = m.at % n; return text.slice(0, at) + m.text + text.slice(at); }
    case 'truncate': return text.slice(0, m.at % n);
    case 'swapLines': {
      const lines = text.split('\n');
      const a = m.a % lines.length;
      const b = m.b % lines.length;
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      return lines.join('\n');
    }
  }
}

function assertWellFormed(t: Task, text: string): void {
  assert.ok(t.format === 'tb1' || t.format === 'harbor');
  assert.ok(Number.isFinite(t.timeouts.agentSec) && Number.isFinite(t.timeouts.verifierSec) && Number.isFinite(t.timeouts.buildSec));
  const lineCount = text.split('\n').length;
  for (const p of t.problems) {
    assert.equal(p.class, 'invalidity');
    if (!p.range) continue;
    const { start, end } = p.range;
    assert.ok(start.line >= 0 && start.character >= 0 && start.line < lineCount + 1, JSON.stringify(p));
    assert.ok(end.line > start.line || (end.line === start.line && end.character >= start.character), JSON.stringify(p));
  }
}

void describe('loader: property', () => {
  void it('never throws on random mutations of real task files (deletions, insertions, line swaps, truncation)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TARGETS), fc.array(mutation, { minLength: 1, maxLength: 6 }), async (target, mutations) => {
        const text = mutations.reduce(apply, target.text);
        const task = await loadTask(target.dir, { overlay: new Map([[target.abs, text]]) });
        assertWellFormed(task, text);
      }),
      { numRuns: 400 },
    );
  });

  void it('survives pathological nesting and sizes in both formats', async () => {
    for (const target of TARGETS.filter((t) => /task\.(toml|yaml)$/.test(t.abs))) {
      for (const text of ['['.repeat(200_000), `a = ${'['.repeat(100_000)}`, `x: ${'['.repeat(100_000)}`, '{'.repeat(100_000), '- '.repeat(50_000)]) {
        const task = await loadTask(target.dir, { overlay: new Map([[target.abs, text]]) });
        assert.ok(task.problems.some((p) => p.rule === 'config-parse-error' || p.rule === 'config-invalid-value'), `${target.abs}: ${text.slice(0, 10)}`);
      }
    }
  });
});
