// `--verbose` echo: bounded by what the terminal has not read yet; what it skips is said, never hidden.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { liveEcho } from '../../src/cli/liveOutput';

void describe('live output (--verbose)', () => {
  void it('echoes while the reader keeps up, skips past the backlog limit, and says how much once it caught up', () => {
    const lines: string[] = [];
    let backlog = 0;
    const echo = liveEcho({ err: (t) => lines.push(t), errBacklog: () => backlog }, 1000);
    echo('first\n');
    backlog = 5000;
    echo('x'.repeat(300));
    echo('é\n'); // bytes, not characters: 3
    backlog = 10;
    echo('after\n');
    assert.deepEqual(lines, [
      'first',
      "[taskwright: 303 bytes of live output skipped: the terminal read slower than the trial wrote; the trial's log files have all of it]",
      'after',
    ]);
  });

  void it('without a backlog figure it echoes everything', () => {
    const lines: string[] = [];
    const echo = liveEcho({ err: (t) => lines.push(t) }, 1);
    for (let i = 0; i < 3; i++) echo(`line ${i}\n`);
    assert.deepEqual(lines, ['line 0', 'line 1', 'line 2']);
  });
});
