// The Kubernetes snapshot's pure parts: the listing's parse, the changes between two listings (as
// `docker diff` reports them) and the overlay a commit archives, without a cluster.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changesBetween, overlayOf, parseListing, type Stat } from '../../src/core/sandbox/kubernetes/podSnapshot';

const FILE = 0o100644;
const DIRM = 0o040755;
const st = (mode: number, over: Partial<Stat> = {}): Stat => ({ mode, uid: 0, gid: 0, size: 10, mtime: '100', ctime: '100', ...over });

void describe('Kubernetes snapshots: listings and overlays', () => {
  void it('parses stat lines (hex mode, owners, size, times in ns or s, a path with spaces) and skips what is not one', () => {
    const l = parseListing(['81a4 0 0 12 1700000000.123456789 1700000001.000000001 /app/a b.txt', '41ed 1000 1000 4096 1 2 /app', 'stat: cannot stat', ''].join('\n'));
    assert.deepEqual([...l.keys()], ['/app/a b.txt', '/app']);
    assert.deepEqual(l.get('/app/a b.txt'), { mode: 0o100644, uid: 0, gid: 0, size: 12, mtime: '1700000000.123456789', ctime: '1700000001.000000001' });
    assert.equal(l.get('/app')?.uid, 1000);
  });

  void it('reports added, changed and deleted paths as docker diff does, leaving the kubelet\'s files out', () => {
    const base = new Map<string, Stat>([['/app', st(DIRM)], ['/app/in.txt', st(FILE)], ['/app/old.txt', st(FILE)], ['/etc/hosts', st(FILE)], ['/keep', st(FILE)]]);
    const now = new Map<string, Stat>([['/app', st(DIRM, { ctime: '200' })], ['/app/in.txt', st(FILE, { ctime: '200' })], ['/app/out.txt', st(FILE)], ['/etc/hosts', st(FILE, { size: 99, ctime: '300' })], ['/keep', st(FILE)], ['/proc/1', st(FILE)]]);
    assert.deepEqual(changesBetween(base, now), [
      { path: '/app', kind: 'changed' }, { path: '/app/in.txt', kind: 'changed' }, { path: '/app/old.txt', kind: 'deleted' }, { path: '/app/out.txt', kind: 'added' },
    ]);
  });

  void it('a change of ctime alone is a change (a write that kept size and mtime), and a chmod is one', () => {
    const base = new Map<string, Stat>([['/a', st(FILE)], ['/b', st(FILE)]]);
    const now = new Map<string, Stat>([['/a', st(FILE, { ctime: '101' })], ['/b', st(0o100755)]]);
    assert.deepEqual(changesBetween(base, now).map((c) => c.kind), ['changed', 'changed']);
  });

  void it('archives added and changed paths parents first; removes deleted and retyped paths, topmost only', () => {
    const base = new Map<string, Stat>([['/gone', st(DIRM)], ['/gone/x', st(FILE)], ['/gone/y/z', st(FILE)], ['/was-file', st(FILE)], ['/same', st(FILE)]]);
    const now = new Map<string, Stat>([['/was-file', st(DIRM, { ctime: '200' })], ['/was-file/inner', st(FILE)], ['/new', st(DIRM)], ['/new/f', st(FILE)], ['/same', st(FILE)]]);
    const o = overlayOf(base, now);
    assert.deepEqual(o.archive, ['/new', '/new/f', '/was-file', '/was-file/inner']);
    assert.deepEqual(o.removals, ['/gone', '/was-file']);
  });
});
