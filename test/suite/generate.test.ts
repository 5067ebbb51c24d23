// Runs inside the real VS Code extension host with `examples/` open and the real Docker Engine:
// "Set API Key" stores a key in SecretStorage, and "Generate Tasks…" (its argument form) drafts a task
// from a local server speaking the Anthropic Messages wire format, passes it through every gate in
// Docker, writes it under the workspace, and the Task Explorer lists it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { YieldReport } from '../../src/core/generate/report';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { goodDraft, submit } from '../support/generateDrafts';
import { api, until, workspaceDir } from './helpers';

const KEY = 'sk-generate-extension-host-suite';
const TASK_ID = 'generated-sum-numbers';

const runsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');
const listRuns = (): string[] => (fs.existsSync(runsDir()) ? fs.readdirSync(runsDir()) : []);

/** Every file under `dir` whose content contains `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesContaining(p, needle);
    return e.isFile() && fs.readFileSync(p).includes(needle) ? [p] : [];
  });
}

/** Containers this extension host created (the sandbox labels each with its pid), running or not. */
const leftContainers = (): string => execFileSync('docker', ['ps', '-aq', '--filter', 'label=taskwright', '--filter', `label=taskwright.pid=${process.pid}`], { encoding: 'utf8' }).trim();

describe('Generate Tasks', () => {
  let server: AnthropicScriptedServer | undefined;
  let tmp: string | undefined;
  let runsBefore: Set<string>;
  const savedEnv = { ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY };

  before(async () => {
    runsBefore = new Set(listRuns());
    // Every request gets the good draft: accepted in round 1.
    server = await startAnthropicServer({ apiKey: KEY, auth: 'either', script: () => submit(goodDraft({}, TASK_ID)) });
    // What a user pointing the SDK at a proxy would set; the extension host is this process. The
    // environment's key is removed so only the one stored by "Set API Key" can be accepted.
    process.env.ANTHROPIC_BASE_URL = server.url;
    delete process.env.ANTHROPIC_API_KEY;
  });

  after(async () => {
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    for (const id of listRuns().filter((r) => !runsBefore.has(r))) fs.rmSync(path.join(runsDir(), id), { recursive: true, force: true });
  });

  it('stores the key, generates one task through the Docker gates, and the Task Explorer lists it', async function () {
    this.timeout(10 * 60_000);
    const a = await api();
    assert.ok(server);
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);

    tmp = fs.mkdtempSync(path.join(workspaceDir(), 'tmp-generated-'));
    const report = await vscode.commands.executeCommand<YieldReport | undefined>('taskwright.generate.tasks', {
      topic: 'integer arithmetic on text files', count: 1, format: 'harbor', difficulty: 'easy', outDir: tmp, model: 'claude-sonnet-4-5', rounds: 2, runs: 1,
    });
    assert.ok(report, 'Generate Tasks returned no report (see the Taskwright log)');
    assert.deepEqual(report.counts, { requested: 1, generated: 1, auditClean: 1, built: 1, oraclePasses: 1, nopFails: 1, stable: 1, accepted: 1, rejected: 0, errors: 0, cancelled: 0 });
    assert.deepEqual(report.tasks.map((t) => [t.id, t.outcome, t.rounds]), [[TASK_ID, 'accepted', 1]]);
    assert.equal(report.roundsUsed, 1);

    // The stored key (not the environment's) reached the server, in the header the SDK uses.
    assert.ok(server.requests.length > 0, 'the server received no request');
    assert.ok(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}` || r.headers['x-api-key'] === KEY));

    const dir = path.join(tmp, TASK_ID);
    for (const f of ['task.toml', 'instruction.md', 'environment/Dockerfile', 'solution/solve.sh', 'tests/test.sh']) {
      assert.ok(fs.existsSync(path.join(dir, f)), `${TASK_ID}/${f} was not written`);
    }
    assert.deepEqual(fs.readdirSync(tmp), [TASK_ID], 'only the accepted task lands in the output folder');

    await until(`${TASK_ID} appears in the Task Explorer`, () => a.taskExplorer.taskIds().includes(TASK_ID));
    await a.taskExplorer.ready();
    assert.equal(a.taskExplorer.task(dir)?.format, 'harbor');
    assert.deepEqual(a.taskExplorer.task(dir)?.problems, []);

    assert.deepEqual(filesContaining(tmp, KEY), [], 'the key is written nowhere in the output folder');
    const newRuns = listRuns().filter((r) => !runsBefore.has(r)).map((r) => path.join(runsDir(), r));
    assert.deepEqual(newRuns.flatMap((r) => filesContaining(r, KEY)), [], 'the key is written nowhere in the results');
    assert.equal(leftContainers(), '', 'no taskwright container left behind');
  });
});
