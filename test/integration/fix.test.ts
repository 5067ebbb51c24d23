// `taskwright fix --validate` on a dynamic finding, in real Docker: the task's image plants the answer,
// so a null agent earns reward (`nop-passes`). The wire-level model server first proposes a change that
// leaves the image as it is (validated again in Docker: still nop-passes, sent back), then the real fix
// (the plant removed, and the verifier hardened against the probes that can bite once it is gone); only
// the second is accepted, and only `--apply` writes it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { LABEL } from '../../src/core/sandbox/runtime';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { countToolResults } from '../support/scripted';

const KEY = 'sk-fix-integration';
const root = path.resolve(__dirname, '../../..');
const fixture = path.join(root, 'test/fixtures/sandbox/nop-passes');
let work: string;
let server: AnthropicScriptedServer;

const PLANTED = fs.readFileSync(path.join(fixture, 'environment/Dockerfile'), 'utf8');
const CLEAN = PLANTED.replace(/^RUN echo hello > \/app\/greeting\.txt\n/m, '');
const USELESS = `${PLANTED}# the greeting is ready\n`;
// Once the image no longer holds the answer, the cheat probes can tell: the verifier must also run an
// absolute, isolated interpreter (a change that leaves that hole is "new findings", not a fix).
const TEST_SH = fs.readFileSync(path.join(fixture, 'tests/test.sh'), 'utf8');
const HARDENED = TEST_SH.replace('if python3 -m pytest', 'if /usr/bin/python3 -I -m pytest');

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-fix-int-'));
  fs.cpSync(fixture, path.join(work, 'nop-passes'), { recursive: true });
  server = await startAnthropicServer({
    apiKey: KEY,
    script: (req) => ({
      kind: 'turn', usage: { input: 3000, output: 300 },
      toolCalls: [{ name: 'submit_fix', input: { explanation: 'the image already holds the answer', files: countToolResults(req.body) === 0 ? [{ path: 'environment/Dockerfile', content: USELESS }] : [{ path: 'environment/Dockerfile', content: CLEAN }, { path: 'tests/test.sh', content: HARDENED }] } }],
    }),
  });
});

after(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('taskwright fix --validate (integration)', () => {
  void it('rechecks each change by validating a copy in Docker, and applies the one that removes nop-passes (integration)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['fix', 'nop-passes', '--validate', '--rule', 'nop-passes', '--apply', '--format', 'json', '--results', 'results'], {
      out: (t) => out.push(t), err: (t) => err.push(t), cwd: work, signal: new AbortController().signal,
      env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_AUTH_TOKEN: '' },
    });
    assert.equal(code, 0, `${err.filter((l) => !l.startsWith('[validate]')).join('\n')}\n${out.join('')}`);
    const r = JSON.parse(out.join('')) as { status: string; applied: boolean; rounds: number; files: string[]; failures: string[]; finding: { rule: string; source: string } };
    assert.deepEqual([r.status, r.applied, r.rounds, r.files, r.finding.rule, r.finding.source], ['fixed', true, 2, ['environment/Dockerfile', 'tests/test.sh'], 'nop-passes', 'validate']);
    assert.match(r.failures[0] ?? '', /still reported after your change:\n- tests\/test\.sh.*\[nop-passes\]/);
    assert.equal(fs.readFileSync(path.join(work, 'nop-passes/environment/Dockerfile'), 'utf8'), CLEAN);
    assert.equal(fs.readFileSync(path.join(work, 'nop-passes/tests/test.sh'), 'utf8'), HARDENED);
    // The rechecks ran on scratch copies: no scratch folder and no container is left.
    assert.deepEqual(fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('taskwright-fix-') && fs.statSync(path.join(os.tmpdir(), d)).mtimeMs > Date.now() - 10 * 60_000), []);
    const left = (await new DockerodeRuntime().listByLabel(LABEL)).filter((c) => /nop-passes/.test(c.labels['taskwright.task'] ?? ''));
    assert.deepEqual(left.map((c) => c.id), []);
  });
});
