// The Kubernetes snapshot's shell scripts (listing, archive, removals) in real containers with GNU
// tools (Debian) and with busybox: a state is listed, changed, diffed, archived, and rebuilt in a second
// container from the same start, which then lists the same as the first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { ARCHIVE_SCRIPT, changesBetween, LIST_SCRIPT, overlayOf, parseListing, REMOVE_SCRIPT } from '../../src/core/sandbox/kubernetes/podSnapshot';

const LABEL = 'taskwright.test=k8s-snapshot-scripts';
const started: string[] = [];

function docker(args: readonly string[], input?: Buffer | string): Buffer {
  const r = spawnSync('docker', args, { ...(input !== undefined ? { input } : {}), maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`docker ${args.slice(0, 3).join(' ')}: exit ${r.status}: ${r.stderr.toString('utf8').slice(0, 400)}`);
  return r.stdout;
}

const sh = (id: string, script: string, input?: Buffer | string): Buffer => docker(['exec', ...(input !== undefined ? ['-i'] : []), id, 'sh', '-c', script], input);

/** The image's state plus a few files of our own, as a trial's Pod is when it starts. */
function start(image: string): string {
  const id = docker(['run', '-d', '--network', 'none', '--label', LABEL, image, 'sleep', '600']).toString('utf8').trim();
  started.push(id);
  sh(id, 'mkdir -p /app/old/deep && echo x > /app/old/deep/x && echo keep > /app/keep && echo file > /app/was-file');
  return id;
}

const SOLUTION = 'rm -rf /app/old; echo changed > /app/keep; echo new > /app/new; chmod 600 /app/new; ln -s new /app/link; rm /app/was-file; mkdir /app/was-file; echo in > /app/was-file/in';

after(() => {
  for (const id of started) spawnSync('docker', ['rm', '-f', id]);
});

for (const image of ['debian:bookworm-slim', 'busybox:1.36']) {
  void describe(`Kubernetes snapshot scripts on ${image} (integration, Docker)`, () => {
    void it('lists, diffs, archives and rebuilds the changed state in a fresh container', () => {
      const a = start(image);
      const base = parseListing(sh(a, LIST_SCRIPT).toString('utf8'));
      assert.ok(base.size > 50, `only ${base.size} paths listed`);
      assert.ok(base.has('/app/keep') && base.has('/app/old/deep/x'));
      // busybox's stat gives whole seconds: the solution runs a second after the start, as a trial's does.
      sh(a, `sleep 1; ${SOLUTION}`);
      const now = parseListing(sh(a, LIST_SCRIPT).toString('utf8'));
      const app = changesBetween(base, now).filter((c) => c.path.startsWith('/app'));
      assert.deepEqual(app, [
        { path: '/app', kind: 'changed' }, { path: '/app/keep', kind: 'changed' }, { path: '/app/link', kind: 'added' }, { path: '/app/new', kind: 'added' },
        { path: '/app/old', kind: 'deleted' }, { path: '/app/old/deep', kind: 'deleted' }, { path: '/app/old/deep/x', kind: 'deleted' },
        { path: '/app/was-file', kind: 'changed' }, { path: '/app/was-file/in', kind: 'added' },
      ]);
      const overlay = overlayOf(base, now);
      const tar = sh(a, ARCHIVE_SCRIPT, overlay.archive.map((p) => `.${p}\n`).join(''));
      // A fresh container from the same start gets the removals, then the archive.
      const b = start(image);
      sh(b, REMOVE_SCRIPT, `${overlay.removals.join('\n')}\n`);
      sh(b, 'tar -xf - -C /', tar);
      const rebuilt = parseListing(sh(b, LIST_SCRIPT).toString('utf8'));
      const view = (l: ReturnType<typeof parseListing>): [string, number, number][] => [...l].filter(([p]) => p.startsWith('/app')).map(([p, s]): [string, number, number] => [p, s.mode, (s.mode & 0o170000) === 0o040000 ? 0 : s.size]).sort();
      assert.deepEqual(view(rebuilt), view(now));
      assert.equal(sh(b, 'cat /app/keep /app/new /app/was-file/in; readlink /app/link').toString('utf8'), 'changed\nnew\nin\nnew\n');
    });
  });
}
