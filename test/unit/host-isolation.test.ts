import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { readBuildContext } from '../../src/core/sandbox/buildContext';
import { CappedLog } from '../../src/core/sandbox/cappedLog';
import { escapesTask, PathOutsideTaskError } from '../../src/core/sandbox/contain';
import type { ContainerRuntime, ExecRequest } from '../../src/core/sandbox/runtime';
import { ContainerSession } from '../../src/core/sandbox/session';
import type { Task } from '../../src/core/model/task';
import { entriesFromDir, entryFromFile, tarStream, unpackTar } from '../../src/core/sandbox/tar';
import { CappedBytes, readTarStream } from '../../src/core/sandbox/tarReader';
import { FIXTURES, makeTask, removeTemp } from './audit-helpers';
import { tempDir } from '../support/tempDir';

function tmp(prefix: string): string {
  return tempDir(prefix);
}

/** A folder outside every task, standing in for the host's /etc. */
function hostSecrets(): string {
  const d = tmp('tw-host-');
  fs.writeFileSync(path.join(d, 'shadow'), 'root:$6$secret\n');
  return d;
}

async function ruleFindings(dir: string): Promise<string[]> {
  const fs2 = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
  return fs2.filter((f) => f.rule === 'path-outside-task').map((f) => `${f.file}: ${f.message}`);
}

void describe('host isolation: paths that leave the task', () => {
  void it('tells links that leave the task from links that stay inside', () => {
    const host = hostSecrets();
    const task = tmp('tw-task-');
    fs.mkdirSync(path.join(task, 'tests'));
    fs.writeFileSync(path.join(task, 'tests', 'data.txt'), 'x');
    fs.symlinkSync(host, path.join(task, 'etc'));
    fs.symlinkSync(path.join(host, 'shadow'), path.join(task, 'tests', 'shadow'));
    fs.symlinkSync('data.txt', path.join(task, 'tests', 'alias.txt'));
    fs.symlinkSync('/nonexistent/elsewhere', path.join(task, 'dangling'));
    fs.symlinkSync('../../..', path.join(task, 'tests', 'up'));
    assert.equal(escapesTask(task, path.join(task, 'tests', 'alias.txt')), undefined);
    assert.equal(escapesTask(task, path.join(task, 'tests')), undefined);
    assert.equal(escapesTask(task, path.join(task, 'etc')), fs.realpathSync(host));
    assert.equal(escapesTask(task, path.join(task, 'etc', 'shadow')), fs.realpathSync(path.join(host, 'shadow')));
    assert.equal(escapesTask(task, path.join(task, 'dangling')), '/nonexistent/elsewhere');
    assert.ok(escapesTask(task, path.join(task, 'tests', 'up')));
    assert.ok(escapesTask(task, path.join(task, '..')));
  });

  void it('archives links as links (an outward one too, never followed) and refuses a tests folder that leads out', () => {
    const host = hostSecrets();
    const task = tmp('tw-task-');
    fs.mkdirSync(path.join(task, 'tests'));
    fs.writeFileSync(path.join(task, 'tests', 'test_a.py'), 'def test_a(): pass\n');
    fs.symlinkSync('test_a.py', path.join(task, 'tests', 'test_b.py'));
    const ok = entriesFromDir(path.join(task, 'tests'), 'tests', { within: task });
    assert.deepEqual(ok.map((e) => `${e.type} ${e.name}`), ['file tests/test_a.py', 'symlink tests/test_b.py']);
    fs.symlinkSync(path.join(host, 'shadow'), path.join(task, 'tests', 'shadow'));
    const out = entriesFromDir(path.join(task, 'tests'), 'tests', { within: task });
    const link = out.find((e) => e.name === 'tests/shadow');
    // The link's text goes into the archive, not the host file it reaches: nothing of the host is read.
    assert.deepEqual(link && { type: link.type, target: link.linkTarget, source: link.source }, { type: 'symlink', target: path.join(host, 'shadow'), source: undefined });
    assert.ok(out.every((e) => e.source === undefined || !e.source.startsWith(host)));
    // The folder itself linked out (`tests -> /etc`) is refused at the root, nothing listed.
    fs.rmSync(path.join(task, 'tests'), { recursive: true });
    fs.symlinkSync(host, path.join(task, 'tests'));
    assert.throws(() => entriesFromDir(path.join(task, 'tests'), 'tests', { within: task }), (e: unknown) => e instanceof PathOutsideTaskError && e.rule === 'path-outside-task' && e.rel === 'tests');
    fs.symlinkSync(path.join(host, 'shadow'), path.join(task, 'run-tests.sh'));
    assert.throws(() => entryFromFile(path.join(task, 'run-tests.sh'), 'tests/run-tests.sh', task), PathOutsideTaskError);
  });

  void it('refuses a build context outside the task, and sends a link out of the context as a link', async () => {
    const host = hostSecrets();
    const task = tmp('tw-task-');
    fs.mkdirSync(path.join(task, 'environment'));
    fs.writeFileSync(path.join(task, 'environment', 'Dockerfile'), 'FROM busybox\n');
    assert.equal(readBuildContext(path.join(task, 'environment'), path.join(task, 'environment', 'Dockerfile'), task).files, 1);
    assert.throws(() => readBuildContext(path.dirname(task), path.join(task, 'environment', 'Dockerfile'), task), PathOutsideTaskError);
    fs.symlinkSync(host, path.join(task, 'environment', 'host'));
    const withLink = readBuildContext(path.join(task, 'environment'), path.join(task, 'environment', 'Dockerfile'), task);
    assert.equal(withLink.files, 2);
    const chunks: Buffer[] = [];
    for await (const c of withLink.tar()) chunks.push(Buffer.from(c as Uint8Array));
    const files = unpackTar(Buffer.concat(chunks));
    assert.deepEqual(files.map((f) => f.name), ['Dockerfile'], 'the link is in the archive as a link; no host file is');
  });

  void it('is an audit note, with the link\'s own text, on a link out deeper in the task', async () => {
    const harbor = await makeTask('clean-harbor', {});
    try {
      fs.mkdirSync(path.join(harbor, 'environment', '.venv', 'bin'), { recursive: true });
      fs.symlinkSync('/usr/bin/python3', path.join(harbor, 'environment', '.venv', 'bin', 'python'));
      fs.symlinkSync('python', path.join(harbor, 'environment', '.venv', 'bin', 'python3'));
      const fs2 = (await auditTask(await loadTask(harbor))).filter((f) => f.rule === 'path-outside-task');
      assert.deepEqual(fs2.map((f) => [f.file, f.severity]), [['environment/.venv/bin/python', 'info']]);
      assert.match(fs2[0]?.message ?? '', /points outside the task folder \(-> \/usr\/bin\/python3\)\. It is copied as a link, not followed/);
    } finally {
      await removeTemp(harbor);
    }
  });

  void it('is an audit error on a symlinked tests folder and a symlinked TB1 solution, quiet on inside links', async () => {
    const host = hostSecrets();
    const harbor = await makeTask('clean-harbor', {});
    const tb1 = await makeTask('clean-tb1', {});
    try {
      assert.deepEqual(await ruleFindings(harbor), []);
      fs.symlinkSync('test.sh', path.join(harbor, 'tests', 'alias.sh'));
      assert.deepEqual(await ruleFindings(harbor), []);
      fs.rmSync(path.join(harbor, 'tests'), { recursive: true });
      fs.symlinkSync(host, path.join(harbor, 'tests'));
      const h = await ruleFindings(harbor);
      assert.ok(h.some((m) => m.startsWith('tests: The tests folder tests leads outside')), h.join('\n'));
      fs.rmSync(path.join(tb1, 'solution.sh'));
      fs.symlinkSync(path.join(host, 'shadow'), path.join(tb1, 'solution.sh'));
      const t = await ruleFindings(tb1);
      assert.ok(t.some((m) => m.startsWith('solution.sh: The reference solution')), t.join('\n'));
    } finally {
      await removeTemp(harbor);
      await removeTemp(tb1);
    }
    assert.ok(fs.existsSync(FIXTURES));
  });
});

void describe('streamed archives and capped files', () => {
  void it('streams a tar of host files and reads it back entry by entry', async () => {
    const d = tmp('tw-tar-');
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    fs.writeFileSync(path.join(d, 'big.bin'), big);
    fs.writeFileSync(path.join(d, 'small.txt'), 'hello');
    const entries = entriesFromDir(d, `${'p'.repeat(120)}/x`);
    const got = new Map<string, CappedBytes>();
    await readTarStream(tarStream(entries), (name) => {
      const s = new CappedBytes(4 * 1024 * 1024);
      got.set(name, s);
      return s;
    });
    assert.deepEqual([...got.keys()].map((n) => n.slice(-9)), ['x/big.bin', 'small.txt']);
    assert.ok(got.get([...got.keys()][0]!)!.bytes().equals(big));
    assert.equal(got.get([...got.keys()][1]!)!.bytes().toString(), 'hello');
  });

  void it('keeps at most the limit of a file, saying it was cut', async () => {
    const d = tmp('tw-tar-');
    fs.writeFileSync(path.join(d, 'reward.txt'), '1'.repeat(100_000));
    const sink = new CappedBytes(1000);
    // Chunks of odd sizes: header and data boundaries fall anywhere.
    const whole = await new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      tarStream(entriesFromDir(d)).on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts)));
    });
    const odd = Array.from({ length: Math.ceil(whole.length / 333) }, (_v, i) => whole.subarray(i * 333, (i + 1) * 333));
    await readTarStream(Readable.from(odd), () => sink);
    assert.equal(sink.bytes().length, 1000);
    assert.equal(sink.truncated, true);
    const log = path.join(d, 'out.log');
    const capped = new CappedLog(log, 4096);
    for (let i = 0; i < 100; i++) capped.write(Buffer.alloc(1000, 97));
    capped.end();
    const text = fs.readFileSync(log, 'utf8');
    assert.ok(text.startsWith('a'.repeat(4096)));
    assert.match(text, /log truncated at 4096 bytes; 95904 more bytes not kept/);
  });
});

void describe('bounded agent output', () => {
  void it("caps the agent's stdout across all its commands, with one note per command that went past the cap", async () => {
    const d = tmp('tw-agent-out-');
    // A runtime whose every command prints 10 × 1000 bytes.
    const runtime = {
      exec(_id: string, req: ExecRequest) {
        for (let i = 0; i < 10; i++) req.onStdout?.(Buffer.alloc(1000, 98));
        return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 });
      },
    } as unknown as ContainerRuntime;
    const before = process.env.TASKWRIGHT_LOG_LIMIT_MB;
    process.env.TASKWRIGHT_LOG_LIMIT_MB = String(15000 / (1024 * 1024));
    try {
      const session = new ContainerSession({} as Task, 'c1', runtime, { dir: d, prefix: 'agent' }, new AbortController().signal);
      for (let i = 0; i < 5; i++) await session.exec('yes | head -c 10000');
    } finally {
      if (before === undefined) delete process.env.TASKWRIGHT_LOG_LIMIT_MB; else process.env.TASKWRIGHT_LOG_LIMIT_MB = before;
    }
    const text = fs.readFileSync(path.join(d, 'agent.stdout'), 'utf8');
    assert.ok(text.startsWith('b'.repeat(15000)));
    assert.equal(text.replace(/\n\[taskwright: log truncated[^\]]*\]\n/g, '').length, 15000, 'exactly the cap is kept');
    // The second command crossed the cap (5000 cut), the three after it were cut whole.
    assert.deepEqual([...text.matchAll(/(\d+) more bytes not kept/g)].map((m) => Number(m[1])), [5000, 10000, 10000, 10000]);
    assert.match(fs.readFileSync(path.join(d, 'agent.log'), 'utf8'), /\[exit 0, 1 ms\]/);
  });
});
