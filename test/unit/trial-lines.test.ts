// Live trial output: whole lines, each with its trial, however the chunks fall.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrialLines } from '../../src/core/sandbox/trialLines';

void describe('trial lines (live output)', () => {
  void it('joins chunks into whole lines, prefixes each, and flushes an unfinished last line', () => {
    const out: string[] = [];
    const a = new TrialLines('[001-a] ', (t) => out.push(t));
    const b = new TrialLines('[002-b] ', (t) => out.push(t));
    a.write('coll');
    b.write('$ bash /tests/test.sh\n');
    a.write('ected 3 items\nPASS');
    a.write('ED x\nFAILED y\n');
    a.write('tail without newline');
    a.flush();
    a.flush();
    assert.deepEqual(out, [
      '[002-b] $ bash /tests/test.sh\n',
      '[001-a] collected 3 items\n',
      '[001-a] PASSED x\n[001-a] FAILED y\n',
      '[001-a] tail without newline\n',
    ]);
  });

  void it('passes on a line longer than 64 KiB instead of holding it', () => {
    const out: string[] = [];
    const l = new TrialLines('[t] ', (t) => out.push(t));
    l.write('x'.repeat(70 * 1024));
    assert.equal(out.length, 1);
    assert.ok(out[0]!.startsWith('[t] xxx') && out[0]!.endsWith('x\n'));
  });
});
