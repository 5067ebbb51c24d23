// The results-store watcher against the real file system: a store made by one `mkdir -p` (as every
// run makes it) is followed from its first run on, later runs too, and a store removed and made again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { defaultResultsDir } from '../../src/core/results/store';
import { type StoreEvent, StoreWatcher } from '../../src/core/results/storeWatcher';
import { waitUntil as waitFor } from '../support/waitFor';
import { tempDir } from '../support/tempDir';


void describe('results store watcher', () => {
  let watcher: StoreWatcher | undefined;
  afterEach(() => { watcher?.close(); watcher = undefined; });

  const setup = (): { floor: string; store: string; events: StoreEvent[]; seen: (kind: StoreEvent['kind'], p: string) => boolean } => {
    const floor = tempDir('tw-watch-');
    const store = defaultResultsDir(floor);
    const events: StoreEvent[] = [];
    return { floor, store, events, seen: (kind, p) => events.some((e) => e.kind === kind && e.path === p) };
  };

  void it('follows a store made in one mkdir -p after the watch started, and the trials appended to it', async () => {
    const { floor, store, events, seen } = setup();
    watcher = new StoreWatcher(floor, store, (e) => events.push(e));
    const run = path.join(store, 'r1');
    fs.mkdirSync(path.join(run, 'trials'), { recursive: true });
    fs.writeFileSync(path.join(run, 'trials.jsonl'), '{"trial":"a"}\n');
    await waitFor('the new run announced', () => seen('add', run));
    assert.ok(events.every((e) => e.runDir === run));
    await waitFor('its trials file', () => events.some((e) => e.path === path.join(run, 'trials.jsonl')));
    const before = events.length;
    fs.appendFileSync(path.join(run, 'trials.jsonl'), '{"trial":"b"}\n');
    await waitFor('the appended trial', () => events.slice(before).some((e) => e.kind === 'change' && e.path === path.join(run, 'trials.jsonl')));

    // A second run, also made in one go, under a store that now exists.
    const run2 = path.join(store, 'r2');
    fs.mkdirSync(path.join(run2, 'trials'), { recursive: true });
    fs.writeFileSync(path.join(run2, 'validation.json'), '{}');
    await waitFor('the second run', () => seen('add', run2));
    await waitFor('its validation', () => events.some((e) => e.path === path.join(run2, 'validation.json') && e.kind !== 'remove'));
    assert.deepEqual([...watcher.followed()].sort(), [run, run2]);
  });

  void it('says nothing about runs that existed at the start, and follows them', async () => {
    const { floor, store, events } = setup();
    const run = path.join(store, 'old');
    fs.mkdirSync(run, { recursive: true });
    fs.writeFileSync(path.join(run, 'trials.jsonl'), '');
    watcher = new StoreWatcher(floor, store, (e) => events.push(e));
    assert.equal(events.length, 0, 'the caller reads the store once itself');
    fs.appendFileSync(path.join(run, 'trials.jsonl'), '{}\n');
    await waitFor('the append', () => events.some((e) => e.kind === 'change' && e.path === path.join(run, 'trials.jsonl')));
  });

  void it('drops runs when the store is removed and follows it again when it is made anew', async () => {
    const { floor, store, events, seen } = setup();
    const run = path.join(store, 'r1');
    fs.mkdirSync(run, { recursive: true });
    watcher = new StoreWatcher(floor, store, (e) => events.push(e));
    fs.rmSync(path.join(floor, '.taskwright'), { recursive: true });
    await waitFor('the run removed', () => seen('remove', run));
    assert.deepEqual(watcher.followed(), []);
    const again = path.join(store, 'r3');
    fs.mkdirSync(again, { recursive: true });
    await waitFor('a run of the new store', () => seen('add', again));
    const n = events.length;
    fs.writeFileSync(path.join(again, 'run.json'), '{}');
    await waitFor('a file of it', () => events.slice(n).some((e) => e.path === path.join(again, 'run.json')));
  });

  void it('is silent after close, and refuses a store outside its floor', async () => {
    const { floor, store, events } = setup();
    watcher = new StoreWatcher(floor, store, (e) => events.push(e));
    watcher.close();
    fs.mkdirSync(path.join(store, 'r1'), { recursive: true });
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(events, []);
    assert.throws(() => new StoreWatcher(path.join(floor, 'sub'), store, () => undefined), /is not inside/);
  });
});
