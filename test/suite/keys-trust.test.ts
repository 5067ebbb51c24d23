// Runs inside the real VS Code extension host with `examples/` open: one key command whose key every
// model path reads (Rerun Task… with an `anthropic:` policy, against a local server speaking the
// Messages wire format, in Docker), and the trust gate: in an untrusted workspace every command that
// builds, runs a container or an agent, or calls a model is refused and starts nothing. Generate Tasks…
// checks for the key before its first question and starts the difficulty on the CLI's default.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_GEN_DIFFICULTY } from '../../src/core/generate/types';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { commandScript } from '../support/scripted';
import { api, EXTENSION_ID, listWorkspaceRuns, workspaceDir, workspaceRunsDir } from './helpers';

const KEY = 'sk-keys-trust-extension-host-suite';
const TASK = 'word-frequency';

describe('One API key for every model path', () => {
  let server: AnthropicScriptedServer | undefined;
  let runsBefore: Set<string>;
  const saved = { ANTHROPIC_BASE_URL: process.env.ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN: process.env.ANTHROPIC_AUTH_TOKEN };

  before(async () => {
    runsBefore = new Set(listWorkspaceRuns());
    server = await startAnthropicServer({ apiKey: KEY, auth: 'either', script: commandScript(['true']) });
    process.env.ANTHROPIC_BASE_URL = server.url;
    // Only the stored key can be accepted.
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_AUTH_TOKEN;
  });

  after(async () => {
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await server?.close();
    for (const id of listWorkspaceRuns().filter((r) => !runsBefore.has(r))) fs.rmSync(path.join(workspaceRunsDir(), id), { recursive: true, force: true });
  });

  it('contributes one key command, and no other', async () => {
    await api();
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { commands: { command: string; title: string }[] } };
    const keyCommands = pkg.contributes.commands.filter((c) => /api key/i.test(c.title)).map((c) => c.command);
    assert.deepEqual(keyCommands, ['taskwright.models.setApiKey']);
  });

  it('Generate Tasks… without a key says so before asking anything', async () => {
    await api();
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    // The extension and this suite share one `vscode` API object (the same extension): what the command
    // shows is recorded here, and the warning is answered at once as if dismissed.
    const w = vscode.window as { -readonly [K in 'showWarningMessage' | 'showInputBox' | 'showQuickPick']: unknown };
    const saved = { showWarningMessage: w.showWarningMessage, showInputBox: w.showInputBox, showQuickPick: w.showQuickPick };
    const shown: string[] = [];
    w.showWarningMessage = (m: string): Promise<undefined> => { shown.push(`warning: ${m}`); return Promise.resolve(undefined); };
    w.showInputBox = (o?: vscode.InputBoxOptions): Promise<undefined> => { shown.push(`question: ${o?.prompt ?? o?.placeHolder ?? ''}`); return Promise.resolve(undefined); };
    w.showQuickPick = (_items: unknown, o?: vscode.QuickPickOptions): Promise<undefined> => { shown.push(`question: ${o?.placeHolder ?? ''}`); return Promise.resolve(undefined); };
    try {
      assert.equal(await vscode.commands.executeCommand('taskwright.generate.tasks'), undefined);
    } finally {
      Object.assign(w, saved);
    }
    assert.equal(shown.length, 1, `one message and no question: ${JSON.stringify(shown)}`);
    assert.match(shown[0] ?? '', /^warning: Taskwright: generating tasks needs an Anthropic API key/);
  });

  it('Generate Tasks… with a key asks its questions, the difficulty starting on the CLI\'s default', async () => {
    await api();
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);
    const w = vscode.window as { -readonly [K in 'showInputBox' | 'showQuickPick']: unknown };
    const saved = { showInputBox: w.showInputBox, showQuickPick: w.showQuickPick };
    const answers = ['integer arithmetic', '1'];
    const picks: { label: string; description?: string }[][] = [];
    w.showInputBox = (): Promise<string | undefined> => Promise.resolve(answers.shift());
    // The format: the first entry; the difficulty: recorded, then Escape.
    w.showQuickPick = (items: readonly { label: string; description?: string }[]): Promise<unknown> => { picks.push([...items]); return Promise.resolve(picks.length === 1 ? items[0] : undefined); };
    try {
      assert.equal(await vscode.commands.executeCommand('taskwright.generate.tasks'), undefined);
    } finally {
      Object.assign(w, saved);
      await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    }
    assert.equal(picks.length, 2, 'format, then difficulty');
    assert.deepEqual(picks[1]?.[0], { label: DEFAULT_GEN_DIFFICULTY, description: 'default (as taskwright generate)' });
  });

  it('Rerun Task… with an anthropic: policy reads the key Set API Key… stored', async function () {
    this.timeout(5 * 60_000);
    await api();
    assert.ok(server);
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const record = await vscode.commands.executeCommand<{ outcome: string; agent: string } | undefined>('taskwright.sandbox.rerun', dir, 'anthropic:claude-sonnet-4-5');
    assert.ok(record, 'the rerun returned a trial record (see the Taskwright log)');
    assert.equal(record.agent, 'anthropic:claude-sonnet-4-5');
    assert.ok(server.requests.length > 0, 'the policy called the model server');
    assert.ok(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}` || r.headers['x-api-key'] === KEY), 'with the stored key');
    assert.notEqual(record.outcome, 'infra-error', `the trial ran (${record.outcome})`);
  });
});

describe('Untrusted workspaces run nothing', () => {
  let server: AnthropicScriptedServer | undefined;
  const saved = process.env.ANTHROPIC_BASE_URL;

  before(async () => {
    server = await startAnthropicServer({ apiKey: KEY, auth: 'either', script: commandScript([]) });
    process.env.ANTHROPIC_BASE_URL = server.url;
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);
  });

  after(async () => {
    (await api()).trust.simulate(undefined);
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
    else process.env.ANTHROPIC_BASE_URL = saved;
    await server?.close();
  });

  it('declares limited support, and gates every command that builds, runs or calls a model', async () => {
    const a = await api();
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { capabilities: { untrustedWorkspaces: { supported: unknown; restrictedConfigurations: string[] } } };
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('taskwright.rules.docsUrl'), 'a workspace cannot point rule links elsewhere until trusted');
    assert.deepEqual(a.trust.gated(), [
      'taskwright.band.resumeRun', 'taskwright.band.runPolicy', 'taskwright.fix.finding', 'taskwright.generate.tasks',
      'taskwright.review.task', 'taskwright.runs.rerun', 'taskwright.sandbox.rerun', 'taskwright.sandbox.validate', 'taskwright.sandbox.validateAll',
    ]);
  });

  it('refuses each of them with a message, and nothing starts: no run, no container, no model request', async function () {
    this.timeout(60_000);
    const a = await api();
    assert.ok(server);
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const runsBefore = listWorkspaceRuns();
    a.trust.simulate(false);
    const finding = { rule: 'pipeline-status-masked', class: 'misalignment', severity: 'error', message: 'x', file: 'tests/test.sh' };
    const calls: [string, ...unknown[]][] = [
      ['taskwright.sandbox.validate', dir], ['taskwright.sandbox.validateAll'], ['taskwright.sandbox.rerun', dir, 'oracle'],
      ['taskwright.band.runPolicy', dir, 'oracle', 1], ['taskwright.band.resumeRun', path.join(workspaceRunsDir(), 'no-such-run')],
      ['taskwright.generate.tasks', { topic: 't', count: 1, format: 'harbor', difficulty: 'easy', outDir: path.join(workspaceDir(), 'tmp-never'), model: 'm', rounds: 1 }],
      ['taskwright.review.task', dir], ['taskwright.fix.finding', dir, finding],
    ];
    for (const [id, ...args] of calls) {
      assert.equal(await vscode.commands.executeCommand(id, ...args), undefined, `${id} returns nothing`);
    }
    await a.testing.run(dir, 'oracle');
    const refused = a.trust.refused();
    for (const [id] of calls) assert.ok(refused.includes(id), `${id} was refused (refused: ${refused.join(', ')})`);
    assert.ok(refused.includes('testing:oracle'), 'the Testing view\'s profiles too');
    assert.deepEqual(listWorkspaceRuns(), runsBefore, 'no run was started');
    assert.equal(server.requests.length, 0, 'no model was called');
    assert.equal(fs.existsSync(path.join(workspaceDir(), 'tmp-never')), false);

    // Reading, listing and the static audit still work.
    assert.ok(a.taskExplorer.taskIds().includes(TASK));
    await vscode.commands.executeCommand('taskwright.audit.workspace');
    assert.ok(!a.trust.refused().includes('taskwright.audit.workspace'));
    a.trust.simulate(undefined);
  });
});
