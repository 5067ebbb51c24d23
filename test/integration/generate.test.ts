import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import type { YieldReport } from '../../src/core/generate/report';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { LABEL, LABEL_PID } from '../../src/core/sandbox/runtime';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { goodDraft, lastFeedback, roundOf, submit, WRONG_SOLVE } from '../support/generateDrafts';
import type { RecordedRequest } from '../support/scripted';

const KEY = 'sk-generate-integration';
let workspace: string;
let server: AnthropicScriptedServer;

/** Which task of the request a conversation is about (its first user message says so). */
function slotOf(req: RecordedRequest): number {
  const first = (req.body.messages as { content: unknown }[] | undefined)?.[0]?.content;
  return Number(/Write task (\d+) of/.exec(String(first))?.[1] ?? 0);
}

void describe('taskwright generate (integration)', () => {
  before(async () => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-gen-int-'));
    // Task 1 is good at once; task 2's reference solution is wrong until the feedback comes back.
    server = await startAnthropicServer({
      apiKey: KEY, auth: 'bearer',
      script: (req) => (slotOf(req) === 1
        ? submit(goodDraft({}, 'sum-numbers'))
        : submit(roundOf(req) === 1 ? goodDraft({ 'solution/solve.sh': WRONG_SOLVE() }, 'sum-numbers-two') : goodDraft({}, 'sum-numbers-two'))),
    });
  });

  after(async () => {
    await server.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  void it('accepts a good task, repairs one whose oracle fails in Docker, and reports the yield (integration)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['generate', '--topic', 'integer arithmetic on text files', '--count', '2', '--out', 'tasks', '--rounds', '2',
      '--difficulty', 'easy', '--runs', '1', '--results', 'results', '--format-report', 'json'], {
      out: (t) => out.push(t), err: (t) => err.push(t), cwd: workspace, signal: new AbortController().signal,
      env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_AUTH_TOKEN: '' },
    });
    assert.equal(code, 0, err.join('\n'));
    const report = JSON.parse(out.join('')) as YieldReport;
    assert.deepEqual(report.counts, { requested: 2, generated: 2, auditClean: 2, built: 2, oraclePasses: 2, nopFails: 2, stable: 2, accepted: 2, rejected: 0, errors: 0, cancelled: 0 });
    assert.equal(report.roundsUsed, 3);
    assert.deepEqual(report.tasks.map((t) => [t.id, t.outcome, t.rounds, t.failedGates]), [['sum-numbers', 'accepted', 1, []], ['sum-numbers-two', 'accepted', 2, ['oracle']]]);
    assert.deepEqual(report.tokens, { input: 6000, output: 2400, cacheRead: 4500, cacheWrite: 0 });
    assert.ok(report.costUsd !== null && report.costUsd > 0);

    // The repair request carried the failing gate and the verifier's own output from the container.
    const repair = server.requests.find((r) => slotOf(r) === 2 && roundOf(r) === 2);
    assert.ok(repair, 'a repair request was sent');
    const feedback = lastFeedback(repair);
    assert.match(feedback, /Gate failed: oracle/);
    assert.match(feedback, /test_total_is_the_sum_of_the_numbers/);
    assert.ok(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`));

    assert.deepEqual(fs.readdirSync(path.join(workspace, 'tasks')).sort(), ['sum-numbers', 'sum-numbers-two']);
    assert.ok(fs.existsSync(path.join(workspace, 'tasks/sum-numbers-two/solution/solve.sh')));
    assert.notEqual(fs.readFileSync(path.join(workspace, 'tasks/sum-numbers-two/solution/solve.sh'), 'utf8'), WRONG_SOLVE());
    assert.ok(!err.join('\n').includes(KEY), 'the key never reaches the output');

    // Accepted tasks are portable: built on python:3.11-slim with the one pinned install, and the
    // audit (portability rules included) has nothing to say about them.
    for (const id of ['sum-numbers', 'sum-numbers-two']) {
      const dockerfile = fs.readFileSync(path.join(workspace, 'tasks', id, 'environment/Dockerfile'), 'utf8');
      assert.match(dockerfile, /^FROM python:3\.11-slim$/m);
      assert.match(dockerfile, /^RUN pip install --no-cache-dir pytest==7\.2\.1$/m);
      const audit: string[] = [];
      assert.equal(await main(['audit', path.join(workspace, 'tasks', id), '--fail-on', 'info', '--format', 'json'], { out: (t) => audit.push(t), err: () => undefined, cwd: workspace, env: process.env, signal: new AbortController().signal }), 0, audit.join(''));
    }
    // The offline stand-in is laid out like the real image: interpreter and pip in /usr/local/bin, no
    // Debian "externally managed" marker, the pinned install satisfied without a network.
    const { execFileSync } = await import('node:child_process');
    const probe = execFileSync('docker', ['run', '--rm', '--network', 'none', 'python:3.11-slim', 'sh', '-c',
      'command -v python; command -v pip; test ! -e /usr/lib/python3.11/EXTERNALLY-MANAGED && echo no-marker; pip install --no-cache-dir pytest==7.2.1 >/dev/null && echo installed; echo "$PYTHON_VERSION"'], { encoding: 'utf8' });
    assert.equal(probe, '/usr/local/bin/python\n/usr/local/bin/pip\nno-marker\ninstalled\n3.11.2\n');

    const left = await new DockerodeRuntime().listByLabel(LABEL);
    assert.equal(left.filter((c) => c.labels[LABEL_PID] === String(process.pid)).length, 0, 'no container left behind');
  });
});
