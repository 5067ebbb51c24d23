import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { dockerignoreMatcher, readBuildContext } from '../../src/core/sandbox/buildContext';
import { packTar } from '../../src/core/sandbox/tar';
import { solutionYamlScript } from '../../src/core/agents/oracle';
import { createAgent } from '../../src/core/agents/factory';
import { tempTree } from '../support/taskFolders';

const tree = (files: Record<string, string>): string => tempTree(files, 'tw-ctx-');

void describe('build context hash', () => {
  void it('is stable for identical content and changes with any file', () => {
    const a = tree({ Dockerfile: 'FROM x\n', 'app/main.py': 'print(1)\n' });
    const b = tree({ Dockerfile: 'FROM x\n', 'app/main.py': 'print(1)\n' });
    const h1 = readBuildContext(a, path.join(a, 'Dockerfile')).hash;
    assert.equal(readBuildContext(b, path.join(b, 'Dockerfile')).hash, h1);
    fs.writeFileSync(path.join(b, 'app/main.py'), 'print(2)\n');
    assert.notEqual(readBuildContext(b, path.join(b, 'Dockerfile')).hash, h1);
  });

  void it('leaves out what .dockerignore excludes, but never the Dockerfile', () => {
    const a = tree({ Dockerfile: 'FROM x\n', '.dockerignore': 'logs\n*.tmp\n!keep.tmp\nDockerfile\n', 'logs/a.txt': '1', 'x.tmp': '1', 'keep.tmp': '1' });
    const h1 = readBuildContext(a, path.join(a, 'Dockerfile'));
    fs.writeFileSync(path.join(a, 'logs/a.txt'), 'changed');
    fs.writeFileSync(path.join(a, 'x.tmp'), 'changed');
    const h2 = readBuildContext(a, path.join(a, 'Dockerfile'));
    assert.equal(h2.hash, h1.hash);
    assert.equal(h2.files, 3);
    fs.writeFileSync(path.join(a, 'keep.tmp'), 'changed');
    assert.notEqual(readBuildContext(a, path.join(a, 'Dockerfile')).hash, h1.hash);
  });

  void it('matches Docker ignore patterns', () => {
    const m = dockerignoreMatcher('**/__pycache__\n/build\n# comment\n*.pyc\n');
    assert.equal(m('src/__pycache__/x'), true);
    assert.equal(m('build/out.o'), true);
    assert.equal(m('a.pyc'), true);
    assert.equal(m('src/a.pyc'), false);
    assert.equal(m('src/main.py'), false);
  });

  void it('packs ustar archives in 512-byte blocks with long names split', () => {
    const long = `${'d'.repeat(120)}/file.txt`;
    const tar = packTar([{ name: long, mode: 0o644, type: 'file', data: Buffer.from('hi') }]);
    assert.equal(tar.length % 512, 0);
    assert.equal(tar.subarray(0, 8).toString(), 'file.txt');
    assert.equal(tar.subarray(345, 345 + 120).toString(), 'd'.repeat(120));
    assert.equal(tar.subarray(512, 514).toString(), 'hi');
  });
});

void describe('agents', () => {
  void it('replays solution.yaml as one shell script, non-blocking commands in the background', () => {
    const s = solutionYamlScript([{ command: 'cd /app' }, { command: 'python3 server.py\n', block: false, minTimeoutSec: 2 }, { command: 'echo done' }]);
    assert.match(s, /^#!\/bin\/bash/);
    assert.ok(s.includes('cd /app\n( python3 server.py\n) &\nsleep 2\necho done\n'));
  });

  void it('makes agents from spec strings and rejects unknown kinds', () => {
    assert.equal(createAgent('oracle').spec, 'oracle');
    assert.equal(createAgent('nop').spec, 'nop');
    assert.throws(() => createAgent('gpt'), /unknown agent 'gpt'/);
  });
});
