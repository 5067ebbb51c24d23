import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { STATIC_RULES } from '../../src/core/audit/index';
import { auditTask } from '../../src/core/audit/index';
import { formatFeedback, trimLog } from '../../src/core/generate/feedback';
import { judgeValidation, InfraGateError, type Gates } from '../../src/core/generate/gates';
import { parseDraft, pathProblem, REQUIRED_FILES, submitTool } from '../../src/core/generate/layout';
import { MetaAgent } from '../../src/core/generate/metaAgent';
import { generateTasks } from '../../src/core/generate/pipeline';
import { systemPrompt } from '../../src/core/generate/prompt';
import { buildReport, renderReportText } from '../../src/core/generate/report';
import type { GenerateRequest, ProgressEvent, TaskAttempt } from '../../src/core/generate/types';
import { range } from '../../src/core/model/positions';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { BROKEN_TEST_SH, draftsByRound, filesOf, GEN_FIXTURES, goodDraft, lastFeedback, submit, WRONG_SOLVE } from '../support/generateDrafts';
import type { Script } from '../support/scripted';
import { checks, fakeGates, outcome } from '../support/generateGates';
import { tempDir } from '../support/tempDir';

const KEY = 'sk-generate-unit';
const tmpRoots: string[] = [];
const servers: AnthropicScriptedServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const d of tmpRoots) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = tempDir('tw-gen-');
  tmpRoots.push(d);
  return d;
}

async function server(script: Script, extra: { batchPolls?: number } = {}): Promise<AnthropicScriptedServer> {
  const s = await startAnthropicServer({ apiKey: KEY, script, ...extra });
  servers.push(s);
  return s;
}

function request(outDir: string, over: Partial<GenerateRequest> = {}): GenerateRequest {
  return { topic: 'text processing with coreutils', count: 1, format: 'harbor', difficulty: 'easy', outDir, model: 'claude-sonnet-4-5', rounds: 3, ...over };
}

void describe('generate: the model output schema and path safety', () => {
  void it('accepts a complete Harbor draft and sorts its files', () => {
    const r = parseDraft(goodDraft(), 'harbor');
    assert.deepEqual(r.problems, []);
    assert.equal(r.draft?.id, 'sum-numbers');
    assert.ok(REQUIRED_FILES.harbor.every((p) => r.draft?.files.some((f) => f.path === p)));
  });

  void it('lists every problem of a bad draft at once', () => {
    const bad = { id: 'Bad Id', summary: 's', files: [
      { path: '/etc/passwd', content: '' }, { path: 'tests/../../x', content: '' }, { path: 'tests\\a.py', content: '' },
      { path: 'src/main.py', content: '' }, { path: 'tests/test.sh', content: 'a' }, { path: 'tests/test.sh', content: 'b' },
      { path: 'tests/data', content: 'x' }, { path: 'tests/data/x.txt', content: 'y' }, { path: 'task.toml', content: 1 },
    ] };
    const r = parseDraft(bad, 'harbor');
    assert.equal(r.draft, undefined);
    const text = r.problems.join('\n');
    for (const needle of ["id 'Bad Id'", "'/etc/passwd' is absolute", "'tests/../../x' leaves the task folder", 'backslash',
      "'src/main.py' is outside the harbor layout", "'tests/test.sh' is given twice", "'tests/data' is both a file and a folder",
      'files[8] needs a string path', "required file 'instruction.md' is missing"]) assert.ok(text.includes(needle), `missing: ${needle}\n${text}`);
  });

  void it('rejects inputs that are not objects or have no file list', () => {
    assert.deepEqual(parseDraft('text', 'tb1').problems, ['the submit_task input is not an object']);
    assert.ok(parseDraft({ id: 'abc', summary: '' }, 'tb1').problems.includes('files must be a list of {path, content}'));
  });

  void it('keeps each format to its own layout', () => {
    const cases: [string, 'harbor' | 'tb1', boolean][] = [
      ['environment/data/a.csv', 'harbor', true], ['solution/solve.sh', 'harbor', true], ['Dockerfile', 'harbor', false],
      ['run-tests.sh', 'tb1', true], ['data/input.txt', 'tb1', true], ['environment/Dockerfile', 'tb1', false], ['instruction.md', 'tb1', false],
      ['.git/config', 'tb1', false], ['.taskwright/x', 'harbor', false], ['REJECTED.md', 'tb1', false], ['C:/x', 'tb1', false], ['a//b', 'tb1', false], ['./a', 'tb1', false],
    ];
    for (const [p, format, ok] of cases) assert.equal(pathProblem(p, format) === undefined, ok, `${format} ${p}: ${pathProblem(p, format) ?? 'ok'}`);
  });

  void it('describes every required file in the tool schema', () => {
    const tool = submitTool('tb1');
    assert.equal(tool.name, 'submit_task');
    assert.deepEqual((tool.input_schema as { required: string[] }).required, ['id', 'summary', 'files']);
    for (const f of REQUIRED_FILES.tb1) assert.ok(tool.description.includes(f));
  });
});

void describe('generate: the system prompt', () => {
  void it('carries the audit rules from the rule table, the base image and the format contract', () => {
    const p = systemPrompt('harbor');
    for (const r of STATIC_RULES.filter((x) => x.severity !== 'info')) assert.ok(p.includes(`${r.id}: ${r.title}`), r.id);
    // What the REAL public images hold, so an accepted task runs on a stock runner too.
    assert.match(p, /FROM python:3\.11-slim` .*It does NOT contain pytest/);
    assert.match(p, /RUN pip install --no-cache-dir pytest==7\.2\.1/);
    assert.match(p, /the real image has no python3 and no pytest/);
    assert.doesNotMatch(p, /python3 3\.11 and pytest 7 .*already installed/);
    assert.match(p, /no network/);
    assert.match(p, /\/logs\/verifier\/reward\.txt/);
    assert.match(p, /--noconftest -c \/dev\/null/);
    assert.match(systemPrompt('tb1'), /never `COPY \. \.\.\.`/);
    assert.doesNotMatch(systemPrompt('tb1'), /instruction\.md`, `environment\/Dockerfile/);
  });
});

void describe('generate: feedback to the meta-agent', () => {
  void it('names the failing gate, each finding at file:line (1-based), the checks and trimmed logs', () => {
    const text = formatFeedback({
      gate: 'oracle', summary: '0/2 oracle trials passed',
      findings: [{ rule: 'oracle-fails', class: 'invalidity', severity: 'error', file: 'solution/solve.sh', range: range(4, 0, 4, 10), message: 'the reference solution failed' }],
      checks: checks({ oracle: 'fail' }), logs: `${'x'.repeat(5000)}TAIL`,
    }, 1, 3);
    assert.match(text, /^Gate failed: oracle/);
    assert.match(text, /- solution\/solve\.sh:5 error \[oracle-fails\] \(invalidity\) the reference solution failed/);
    assert.match(text, /- oracle: fail \(2 run\(s\)\)/);
    assert.match(text, /characters cut/);
    assert.match(text, /TAIL/);
    assert.match(text, /round 2 of 3/);
  });

  void it('trims only long logs, keeping head and tail', () => {
    assert.equal(trimLog('short'), 'short');
    const t = trimLog(`HEAD${'-'.repeat(100)}TAIL`, 20);
    assert.ok(t.startsWith('HEAD') && t.endsWith('TAIL') && t.includes('[88 characters cut]'));
  });
});

void describe('generate: gates from validation checks', () => {
  void it('maps the first failed check to its gate and progress', () => {
    assert.deepEqual(judgeValidation(outcome()).progress, { auditClean: true, built: true, oraclePasses: true, nopFails: true, stable: true });
    const oracle = judgeValidation(outcome({ oracle: 'fail' }, { oracle: 'LOG' }));
    assert.equal(oracle.failure?.gate, 'oracle');
    assert.equal(oracle.failure?.logs, 'LOG');
    assert.equal(oracle.progress.oraclePasses, false);
    assert.equal(oracle.progress.nopFails, true);
    const build = judgeValidation(outcome({ build: 'fail', nop: 'skipped', oracle: 'skipped', agreement: 'skipped', 'reward-isolation': 'skipped' }));
    assert.equal(build.failure?.gate, 'build');
    assert.equal(build.progress.built, false);
    assert.equal(judgeValidation(outcome({ agreement: 'fail' })).failure?.gate, 'agreement');
    assert.equal(judgeValidation(outcome({ agreement: 'fail' })).progress.stable, false);
    assert.equal(judgeValidation(outcome({ 'reward-isolation': 'fail' })).failure?.gate, 'reward-isolation');
    assert.equal(judgeValidation(outcome({ 'timeout-margin': 'fail' })).failure, undefined, 'timeout margin is advice');
    assert.equal(judgeValidation(outcome({ agreement: 'skipped' })).failure, undefined);
    assert.throws(() => judgeValidation(outcome({ nop: 'error' })), InfraGateError);
  });
});

void describe('generate: the yield report', () => {
  void it('counts each stage, rounds, tokens and cost', () => {
    const base = { usage: { input: 100, output: 50, cacheRead: 10, cacheWrite: 5 }, costUsd: 0.01, failures: [] };
    const all = { auditClean: true, built: true, oraclePasses: true, nopFails: true, stable: true };
    const attempts: TaskAttempt[] = [
      { slot: 1, id: 'a', outcome: 'accepted', rounds: 1, progress: all, dir: '/out/a', reasons: [], ...base },
      { slot: 2, id: 'b', outcome: 'rejected', rounds: 3, progress: { ...all, oraclePasses: false, stable: false }, dir: '/out/.taskwright/generate/r/task-2', reasons: ['oracle: 0/2'], ...base },
      { slot: 3, id: 'c', outcome: 'rejected', rounds: 3, progress: { ...all, auditClean: false, built: false, oraclePasses: false, nopFails: false, stable: false }, reasons: ['audit: x'], ...base },
      { slot: 4, outcome: 'cancelled', rounds: 1, progress: { ...all, auditClean: false, built: false, oraclePasses: false, nopFails: false, stable: false }, reasons: ['cancelled'], usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, failures: [] },
    ];
    const r = buildReport(request('/out', { count: 4 }), attempts, '/out');
    assert.deepEqual(r.counts, { requested: 4, generated: 3, auditClean: 2, built: 2, oraclePasses: 1, nopFails: 2, stable: 1, accepted: 1, rejected: 2, errors: 0, cancelled: 1 });
    assert.equal(r.roundsUsed, 8);
    assert.deepEqual(r.tokens, { input: 300, output: 150, cacheRead: 30, cacheWrite: 15 });
    assert.ok(Math.abs((r.costUsd ?? 0) - 0.03) < 1e-12);
    assert.equal(r.tasks[0]?.dir, 'a');
    const text = renderReportText(r);
    assert.match(text, /oracle-passes +1/);
    assert.match(text, /rounds used +8/);
    assert.match(text, /rejected {2}b/);
  });

  void it('states an unknown cost as null rather than a guess', () => {
    const a: TaskAttempt = { slot: 1, id: 'a', outcome: 'rejected', rounds: 1, progress: { auditClean: false, built: false, oraclePasses: false, nopFails: false, stable: false }, reasons: [], usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }, failures: [] };
    assert.equal(buildReport(request('/o', { model: 'my-local-model' }), [a]).costUsd, null);
  });
});

void describe('generate: the pipeline against the wire-level server', () => {
  void it('repairs a task whose reference solution fails and accepts it in round 2', async () => {
    const out = tmp();
    const s = await server(draftsByRound([goodDraft({ 'solution/solve.sh': WRONG_SOLVE() }), goodDraft()]));
    const calls: string[] = [];
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out), { agent, gates: fakeGates(calls), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    assert.equal(report.tasks[0]?.rounds, 2);
    assert.deepEqual(report.tasks[0]?.failedGates, ['oracle']);
    assert.equal(report.roundsUsed, 2);
    assert.deepEqual(report.tokens, { input: 4000, output: 1600, cacheRead: 3000, cacheWrite: 0 });
    assert.deepEqual(calls, ['sum-numbers', 'sum-numbers']);
    const feedback = lastFeedback(s.requests[1]!);
    assert.match(feedback, /Gate failed: oracle/);
    assert.match(feedback, /AssertionError: 12 != 139/);
    // The repair continues the conversation: the first answer and the tool result are in it.
    const msgs = s.requests[1]!.body.messages as { role: string }[];
    assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(fs.readdirSync(out), ['sum-numbers'], 'only the accepted task, no staging left');
    assert.equal(fs.readFileSync(path.join(out, 'sum-numbers/solution/solve.sh'), 'utf8'), goodDraft().files.find((f) => f.path === 'solution/solve.sh')?.content);
    assert.equal(fs.statSync(path.join(out, 'sum-numbers/tests/test.sh')).mode & 0o111, 0o111);
  });

  void it('rejects a task that stays broken after K rounds, with the reasons in REJECTED.md', async () => {
    const out = tmp();
    const s = await server(draftsByRound([goodDraft({ 'tests/test.sh': BROKEN_TEST_SH() }, 'always-pays')]));
    const calls: string[] = [];
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out, { rounds: 2 }), { agent, gates: fakeGates(calls), signal: new AbortController().signal });
    assert.deepEqual(report.counts, { requested: 1, generated: 1, auditClean: 0, built: 0, oraclePasses: 0, nopFails: 0, stable: 0, accepted: 0, rejected: 1, errors: 0, cancelled: 0 });
    assert.equal(report.roundsUsed, 2);
    assert.deepEqual(calls, [], 'an audit failure never reaches Docker');
    assert.equal(s.requests.length, 2);
    assert.match(lastFeedback(s.requests[1]!), /tests\/test\.sh:4 error \[exit-code-masking\]/);
    const entries = fs.readdirSync(out).filter((e) => e !== '.taskwright');
    assert.deepEqual(entries, [], 'nothing in the output folder');
    const rejected = path.resolve(out, report.tasks[0]!.dir!, 'REJECTED.md');
    const text = fs.readFileSync(rejected, 'utf8');
    assert.match(text, /# Rejected: always-pays/);
    assert.match(text, /## Round 1: audit failed/);
    assert.match(text, /## Round 2: audit failed/);
    assert.match(text, /unconditional-reward/);
    assert.doesNotMatch(text, new RegExp(KEY));
    assert.ok(fs.existsSync(path.join(path.dirname(rejected), 'round-2/always-pays/tests/test.sh')), 'the last draft is kept');
  });

  void it('repairs a draft that breaks the schema (no tool call, unsafe path) with the problems as feedback', async () => {
    const out = tmp();
    const bad = { ...goodDraft(), files: [...goodDraft().files, { path: '../escape.sh', content: 'x' }] };
    const s = await server((req) => (req.index === 0 ? { kind: 'turn', text: 'Here is a task: …' } : req.index === 1 ? submit(bad) : submit(goodDraft())));
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    assert.deepEqual(report.tasks[0]?.failedGates, ['schema', 'schema']);
    assert.match(String((s.requests[1]!.body.messages as { content: unknown }[])[2]?.content), /did not call submit_task/);
    assert.match(lastFeedback(s.requests[2]!), /'\.\.\/escape\.sh' leaves the task folder/);
    assert.ok(!fs.existsSync(path.join(out, '..', 'escape.sh')));
  });

  void it('cancels mid-stream and leaves nothing in the output folder', async () => {
    const out = tmp();
    const s = await server(() => ({ ...submit(goodDraft()), stallAfterEvents: 12 }));
    const ctl = new AbortController();
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const events: ProgressEvent[] = [];
    const report = await generateTasks(request(out, { count: 2 }), {
      agent, gates: fakeGates([]), signal: ctl.signal,
      onProgress: (e) => { events.push(e); if ((e.tokens ?? 0) > 0) ctl.abort(new Error('user cancelled')); },
    });
    assert.ok(events.some((e) => e.stage === 'generating' && (e.tokens ?? 0) > 0), 'tokens were streaming when cancelled');
    assert.deepEqual(report.counts.cancelled, 2);
    assert.equal(report.counts.accepted, 0);
    assert.equal(s.requests.length, 1, 'the second task never started');
    assert.deepEqual(fs.readdirSync(out), []);
  });

  void it('retries 429 (retry-after) and 529, and sends the cached prefix, forced tool and version', async () => {
    const out = tmp();
    const s = await server((req) => (req.index === 0 ? { kind: 'error', status: 429, headers: { 'retry-after': '0' } } : req.index === 1 ? { kind: 'error', status: 529 } : submit(goodDraft())));
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', authToken: KEY, baseURL: s.url, maxRetries: 3 });
    const report = await generateTasks(request(out), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    assert.equal(s.requests.length, 3);
    const req = s.requests[2]!;
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.equal(req.headers['anthropic-version'], '2026-10-21');
    assert.equal(req.body.stream, true);
    assert.deepEqual(req.body.tool_choice, { type: 'tool', name: 'submit_task', disable_parallel_tool_use: true });
    assert.deepEqual((req.body.system as { cache_control?: unknown }[])[0]?.cache_control, { type: 'ephemeral' });
    assert.equal((req.body.tools as { name: string }[])[0]?.name, 'submit_task');
  });

  void it('stops on a refused key without trying the remaining tasks', async () => {
    const out = tmp();
    const s = await server(() => submit(goodDraft()));
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: 'sk-wrong', baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out, { count: 3 }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.errors, 3);
    assert.equal(s.requests.length, 1);
    const rejected = fs.readFileSync(path.resolve(out, report.tasks[0]!.dir!, 'REJECTED.md'), 'utf8');
    assert.doesNotMatch(rejected, /sk-wrong/);
  });

  void it('runs the first round through the Message Batches API at half price', async () => {
    const out = tmp();
    let n = 0;
    const s = await server(() => submit(goodDraft({}, `sum-numbers-${++n}`)), { batchPolls: 2 });
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0, pollMs: 5 });
    const events: ProgressEvent[] = [];
    const report = await generateTasks(request(out, { count: 2, batch: true }), { agent, gates: fakeGates([]), signal: new AbortController().signal, onProgress: (e) => events.push(e) });
    assert.equal(report.counts.accepted, 2);
    assert.deepEqual(fs.readdirSync(out).sort(), ['sum-numbers-1', 'sum-numbers-2']);
    const routes = s.requests.map((r) => `${r.method} ${r.path.replace(/msgbatch_[a-z0-9]+/, 'ID')}`);
    assert.deepEqual(routes.filter((r) => r.includes('batches')), [
      'POST /v1/messages/batches', 'GET /v1/messages/batches/ID', 'GET /v1/messages/batches/ID', 'GET /v1/messages/batches/ID',
      'GET /v1/messages/batches/ID', 'GET /v1/messages/batches/ID/results',
      'BATCH /v1/messages/batches/ID/results#task-1', 'BATCH /v1/messages/batches/ID/results#task-2',
    ]);
    assert.ok(!s.requests.some((r) => r.body.stream === true), 'no streamed first round');
    assert.ok(events.some((e) => e.stage === 'batch' && /ended/.test(e.message)));
    // 2 × (2000 in + 1500 cache read at 0.1 + 800 out) at $3/$15 per M, halved.
    const each = (2000 * 3 + 1500 * 0.3 + 800 * 15) / 1e6 / 2;
    assert.ok(Math.abs((report.costUsd ?? 0) - 2 * each) < 1e-12, String(report.costUsd));
  });
});

void describe('generate: cancelling a batch', () => {
  void it('cancels the message batch and leaves nothing in the output folder', async () => {
    const out = tmp();
    const s = await server(() => submit(goodDraft()), { batchPolls: 1000 });
    const ctl = new AbortController();
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0, pollMs: 5 });
    const report = await generateTasks(request(out, { count: 2, batch: true }), {
      agent, gates: fakeGates([]), signal: ctl.signal,
      onProgress: (e) => { if (e.stage === 'batch' && /in_progress \(/.test(e.message)) ctl.abort(new Error('user cancelled')); },
    });
    assert.equal(report.counts.cancelled, 2);
    assert.deepEqual([...s.batches.values()].map((b) => b.canceled), [true]);
    assert.ok(s.requests.some((r) => r.method === 'POST' && r.path.endsWith('/cancel')));
    assert.deepEqual(fs.readdirSync(out), []);
  });
});

void describe('generate: TB1 tasks and calibration', () => {
  void it('writes a TB1 task with its compose file and executable scripts, audit-clean', async () => {
    const out = tmp();
    const draft = { id: 'sum-numbers-tb1', summary: 's', files: filesOf(path.join(GEN_FIXTURES, 'sum-numbers-tb1')) };
    const s = await server(() => submit(draft));
    const seen: string[][] = [];
    const gates: Gates = {
      audit: async (task, signal) => { const f = await auditTask(task, { signal }); seen.push(f.filter((x) => x.severity !== 'info').map((x) => x.rule)); return f; },
      validate: async () => outcome(),
    };
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'tb1', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out, { format: 'tb1' }), { agent, gates, signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    assert.deepEqual(seen, [[]], 'no warning or error from the audit');
    const dir = path.join(out, 'sum-numbers-tb1');
    assert.match(fs.readFileSync(path.join(dir, 'docker-compose.yaml'), 'utf8'), /T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME/);
    for (const f of ['run-tests.sh', 'solution.sh']) assert.equal(fs.statSync(path.join(dir, f)).mode & 0o111, 0o111, f);
    assert.match(String((s.requests[0]!.body.system as { text: string }[])[0]?.text), /Terminal-Bench 1/);
  });

  void it('keeps only tasks in band when calibrated, and repairs the others', async () => {
    const out = tmp();
    const s = await server(draftsByRound([goodDraft()]));
    const bands = ['too-easy', 'in-band'] as const;
    let i = 0;
    const gates: Gates = { ...fakeGates([]), calibrate: async () => ({ band: bands[Math.min(i++, 1)]!, attempts: 2, successes: 2 - Math.min(i - 1, 1) }) };
    const agent = new MetaAgent({ model: 'claude-sonnet-4-5', format: 'harbor', apiKey: KEY, baseURL: s.url, maxRetries: 0 });
    const report = await generateTasks(request(out, { calibrate: 'anthropic:claude-haiku-4-5' }), { agent, gates, signal: new AbortController().signal });
    assert.equal(report.counts.inBand, 1);
    assert.equal(report.counts.accepted, 1);
    assert.deepEqual(report.tasks[0]?.failedGates, ['calibration']);
    assert.match(lastFeedback(s.requests[1]!), /Gate failed: calibration[\s\S]*solved 2 of 2 attempt\(s\): too-easy/);
    assert.match(renderReportText(report), /in band +1/);
  });
});

void describe('generate: command line', () => {
  const io = (env: NodeJS.ProcessEnv, err: string[]) => ({ out: () => undefined, err: (t: string) => err.push(t), cwd: tmp(), env, signal: new AbortController().signal });

  void it('refuses a request without a topic, a folder or a key (exit 2) and never echoes a key', async () => {
    const err: string[] = [];
    assert.equal(await main(['generate', '--count', '1', '--out', 'o'], io({ ANTHROPIC_API_KEY: KEY }, err)), 2);
    assert.match(err.join('\n'), /--topic is required/);
    assert.equal(await main(['generate', '--topic', 't', '--count', '1'], io({ ANTHROPIC_API_KEY: KEY }, err)), 2);
    assert.match(err.join('\n'), /--out is required/);
    assert.equal(await main(['generate', '--topic', 't', '--out', 'o', '--format', 'tb2'], io({ ANTHROPIC_API_KEY: KEY }, err)), 2);
    assert.match(err.join('\n'), /--format takes one of harbor\|tb1/);
    assert.equal(await main(['generate', '--topic', 't', '--out', 'o'], io({}, err)), 2);
    assert.match(err.join('\n'), /no Anthropic key: set ANTHROPIC_API_KEY/);
    assert.doesNotMatch(err.join('\n'), new RegExp(KEY));
  });
});
