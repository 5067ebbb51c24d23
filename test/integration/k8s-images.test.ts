// `taskwright images push`: a task image built on the real Docker engine and pushed by the engine
// (`docker push` over the Registry HTTP API v2) into a tiny registry written for the test; a second
// push of the same tag only asks (HEAD of the manifest) and skips.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { startTinyRegistry, type TinyRegistry } from '../support/tinyRegistry';
import { harborTask } from '../support/taskFolders';

const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'bin/taskwright.js');
const docker = new Docker();
let registry: TinyRegistry;
let work: string;

interface PushJson { version: 1; images: { task: string; image?: string; status: string; message?: string }[] }

function push(args: string[]): Promise<{ code: number | null; json: PushJson; stderr: string }> {
  const child = spawn(process.execPath, [cli, 'images', 'push', ...args, '--json'], { cwd: work, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve) => child.on('exit', (code) => {
    let json: PushJson;
    try { json = JSON.parse(out) as PushJson; } catch { json = { version: 1, images: [] }; }
    resolve({ code, json, stderr: `${err}\n${out}` });
  }));
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-images-'));
  registry = await startTinyRegistry();
});

after(async () => {
  await registry.close();
  // The images this test built and tagged: the content-hash tag and its registry name.
  const mine = await docker.listImages({ filters: { reference: [`${registry.host}/*/*`, 'taskwright/push-probe-*'] } });
  for (const img of mine) await docker.getImage(img.Id).remove({ force: true }).catch(() => undefined);
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('taskwright images push (integration)', () => {
  void it('builds locally, pushes the content-hash tag, and skips it the second time', async () => {
    const id = `push-probe-${randomUUID().slice(0, 8)}`;
    const dir = harborTask(path.join(work, id), { 'environment/Dockerfile': `FROM busybox:latest\nRUN echo ${id} > /etc/probe\n` });
    const first = await push(['--registry', registry.host, dir]);
    assert.equal(first.code, 0, first.stderr);
    const [img] = first.json.images;
    assert.equal(img?.status, 'pushed', first.stderr);
    assert.match(img?.image ?? '', new RegExp(`^${registry.host.replace(/\./g, '\\.')}/taskwright/${id}:[0-9a-f]{16}$`));
    const tag = (img?.image ?? '').slice(registry.host.length + 1);
    assert.deepEqual(registry.tags(), [tag]);
    // The engine really pushed: layers uploaded and a manifest PUT.
    assert.ok(registry.log.some((r) => r.method === 'PUT' && /\/blobs\/uploads\//.test(r.path)), JSON.stringify(registry.log));
    assert.ok(registry.log.some((r) => r.method === 'PUT' && /\/manifests\//.test(r.path) && r.status === 201));

    const before = registry.log.length;
    const second = await push(['--registry', registry.host, dir]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.json.images[0]?.status, 'present');
    const asked = registry.log.slice(before);
    assert.deepEqual(asked.map((r) => `${r.method} ${r.status}`), ['HEAD 200'], JSON.stringify(asked));
  });

  void it('reports a registry that is not there as a failed push, exit 1', async () => {
    const id = `push-probe-${randomUUID().slice(0, 8)}`;
    const dir = harborTask(path.join(work, id), { 'environment/Dockerfile': `FROM busybox:latest\nRUN echo ${id} > /etc/probe\n` });
    const r = await push(['--registry', '127.0.0.1:1', dir]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json.images[0]?.status, 'failed');
    assert.match(r.json.images[0]?.message ?? '', /registry 127\.0\.0\.1:1 is unreachable/);
  });
});
