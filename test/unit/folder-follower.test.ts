// The folder follower against the real file system: a tree made in one `mkdir -p` after the follow
// started is heard level by level (files written before a level's handle opened included), later edits
// and deletions too, and nothing after close.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { type FollowEvent, FolderFollower } from '../../src/core/watch/folderFollower';
import { waitUntil as waitFor } from '../support/waitFor';
import { tempDir } from '../support/tempDir';


void describe('folder follower', () => {
  let follower: FolderFollower | undefined;
  afterEach(() => { follower?.close(); follower = undefined; });

  const setup = (): { root: string; events: FollowEvent[]; seen: (kind: FollowEvent['kind'], p: string) => boolean } => {
    const root = tempDir('tw-follow-');
    const events: FollowEvent[] = [];
    return { root, events, seen: (kind, p) => events.some((e) => e.kind === kind && e.path === p) };
  };

  void it('hears a task made three levels down in one go, its edits and its deletion', async () => {
    const { root, events, seen } = setup();
    follower = new FolderFollower((e) => events.push(e));
    follower.follow(root);
    assert.equal(events.length, 0, 'what is there at the start is for the caller to read');
    const task = path.join(root, 'a', 'b', 'task');
    fs.mkdirSync(path.join(task, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(task, 'task.toml'), 'version = "1.0"\n');
    fs.writeFileSync(path.join(task, 'tests', 'test.sh'), '#!/bin/bash\n');
    await waitFor('the config file', () => seen('create', path.join(task, 'task.toml')));
    await waitFor('the test script, two levels below a folder made in the same go', () => events.some((e) => e.path === path.join(task, 'tests', 'test.sh')));
    assert.ok(follower.follows(path.join(task, 'tests')), 'every level has its handle');

    const n = events.length;
    fs.appendFileSync(path.join(task, 'tests', 'test.sh'), 'exit 0\n');
    await waitFor('the edit', () => events.slice(n).some((e) => e.kind !== 'delete' && e.path === path.join(task, 'tests', 'test.sh')));
    fs.rmSync(task, { recursive: true });
    await waitFor('the task folder deleted', () => seen('delete', task));
    assert.ok(!follower.follows(task) && !follower.follows(path.join(task, 'tests')), 'the handles under it are gone');
  });

  void it('stops at its cap, skips ignored folders, and is silent after close', async () => {
    const { root, events } = setup();
    let full = 0;
    follower = new FolderFollower((e) => events.push(e), { maxFolders: 2, ignore: (d) => path.basename(d) === 'node_modules', onFull: () => { full++; } });
    fs.mkdirSync(path.join(root, 'node_modules', 'x'), { recursive: true });
    fs.mkdirSync(path.join(root, 'one'));
    follower.follow(root);
    assert.ok(!follower.follows(path.join(root, 'node_modules')));
    assert.equal(follower.size, 2);
    fs.mkdirSync(path.join(root, 'two'));
    await waitFor('the new folder reported', () => events.some((e) => e.path === path.join(root, 'two')));
    assert.ok(!follower.follows(path.join(root, 'two')), 'past the cap no handle is added');
    assert.equal(full, 1);
    follower.close();
    const n = events.length;
    fs.writeFileSync(path.join(root, 'one', 'f'), '');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(events.length, n);
  });
});
