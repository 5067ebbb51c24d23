// Runs inside the real VS Code extension host with `examples/` open: rule pages open rendered beside
// the editor (or at the configured https base), a task config that does not parse says so in the
// Task Explorer, a quick fix that edits another file opens it at the change and knows the base image,
// the generation report is a read-only document, and the Get Started walkthrough and its engine check.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { YieldReport } from '../../src/core/generate/report';
import { api, codeOf, EXTENSION_ID, linkedRule, until, workspaceDir } from './helpers';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
const ours = (): [vscode.Uri, vscode.Diagnostic][] => vscode.languages.getDiagnostics()
  .flatMap(([uri, list]) => list.filter((d) => d.source === 'taskwright' && typeof d.code === 'object').map((d) => [uri, d] as [vscode.Uri, vscode.Diagnostic]));

function tabsOf(): { group: number; label: string; viewType?: string; uri?: string }[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => ({
    group: g.viewColumn, label: t.label,
    ...(t.input instanceof vscode.TabInputWebview ? { viewType: t.input.viewType } : {}),
    ...(t.input instanceof vscode.TabInputText ? { uri: t.input.uri.fsPath } : {}),
  })));
}

describe('Rule pages', () => {
  afterEach(async () => {
    await config().update('rules.docsUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens a rule\'s page rendered beside the editor, leaving the file being edited in place', async () => {
    await api();
    const file = path.join(workspaceDir(), 'tasks', 'word-frequency', 'tests', 'test.sh');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    await vscode.commands.executeCommand('taskwright.rules.open', 'pipeline-status-masked');
    await until('a Markdown preview tab', () => tabsOf().some((t) => t.viewType?.includes('markdown.preview')), 20_000, () => JSON.stringify(tabsOf()));
    const preview = tabsOf().find((t) => t.viewType?.includes('markdown.preview'));
    assert.ok(preview);
    assert.match(preview.label, /pipeline-status-masked/);
    const source = tabsOf().find((t) => t.uri === file);
    assert.ok(source, 'the edited file keeps its tab');
    assert.notEqual(preview.group, source.group, 'the page opens in another editor group, beside the file');
    assert.equal(editor.document.isClosed, false);
  });

  it('links each finding\'s code to the rule page command, or to the https page when taskwright.rules.docsUrl is set', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    await until('linked findings in Problems', () => ours().length > 0);
    for (const [, d] of ours()) assert.equal(linkedRule(d), codeOf(d), `${codeOf(d)} links its page by command`);

    await config().update('rules.docsUrl', 'https://docs.example.org/taskwright/rules/', vscode.ConfigurationTarget.Global);
    await until('every link now the https page', () => ours().length > 0 && ours().every(([, d]) => typeof d.code === 'object'
      && d.code.target.toString(true) === `https://docs.example.org/taskwright/rules/${codeOf(d)}.md`), 45_000,
    () => ours().slice(0, 3).map(([, d]) => (typeof d.code === 'object' ? d.code.target.toString(true) : '')).join(', '));

    await config().update('rules.docsUrl', undefined, vscode.ConfigurationTarget.Global);
    await until('links back to the shipped pages', () => ours().length > 0 && ours().every(([, d]) => linkedRule(d) === codeOf(d)));
  });
});

describe('Task Explorer: a config that does not parse', () => {
  let tmp: string | undefined;
  after(async () => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await (await api()).taskExplorer.ready();
  });

  it('shows an error icon and why, not the loader\'s defaults', async () => {
    const a = await api();
    tmp = fs.mkdtempSync(path.join(workspaceDir(), 'tmp-broken-config-'));
    const dir = path.join(tmp, 'broken-config');
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'task.toml'), 'version = "1.0"\n\n[metadata\ndifficulty = "hard"\n');
    fs.writeFileSync(path.join(dir, 'instruction.md'), 'Do the thing.\n');
    fs.writeFileSync(path.join(dir, 'tests', 'test.sh'), '#!/bin/bash\nexit 1\n');
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();
    const row = (): { description: string; icon?: string; tooltip?: string } | undefined => a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === 'broken-config');
    await until('the broken task drawn', () => row() !== undefined);
    const r = row();
    assert.ok(r);
    assert.match(r.description, /^config does not parse: task\.toml is not valid TOML: .+ \(line 3\)$/);
    assert.doesNotMatch(r.description, /(easy|medium|hard|unknown) · /, 'no difficulty or category made up by the loader');
    assert.equal(r.icon, 'error');
    assert.match(r.tooltip ?? '', /does not parse/);
    await vscode.commands.executeCommand('taskwright.tasks.filter', { health: ['error'] });
    assert.ok(a.taskExplorer.visibleTaskIds().includes('broken-config'), 'the health filter counts it as an error');
    await vscode.commands.executeCommand('taskwright.tasks.clearFilter');
  });
});

describe('Quick fixes that edit another file', () => {
  let tmp: string | undefined;
  after(async () => {
    // The edited copies are saved (awaited) before their folder goes, so no editor asks or fails to save.
    const prefix = tmp ? tmp + path.sep : undefined;
    await Promise.all(vscode.workspace.textDocuments.filter((d) => prefix && d.isDirty && d.uri.fsPath.startsWith(prefix)).map((d) => d.save()));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await (await api()).taskExplorer.ready();
  });

  it('moves a test-time pip install into the Dockerfile the Debian image accepts, and opens it at the change', async () => {
    const a = await api();
    tmp = fs.mkdtempSync(path.join(workspaceDir(), 'tmp-pip-fix-'));
    const dir = path.join(tmp, 'pip-at-test-time');
    fs.cpSync(path.join(workspaceDir(), 'tasks', 'word-frequency'), dir, { recursive: true });
    const testSh = path.join(dir, 'tests', 'test.sh');
    fs.writeFileSync(testSh, fs.readFileSync(testSh, 'utf8').replace('mkdir -p /logs/verifier\n', 'mkdir -p /logs/verifier\npip install requests==2.32.3\n'));
    const dockerfile = path.join(dir, 'environment', 'Dockerfile');
    assert.match(fs.readFileSync(dockerfile, 'utf8'), /^FROM debian:bookworm-slim/m, 'the example builds on Debian 12');
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();

    const uri = vscode.Uri.file(testSh);
    const editor = await vscode.window.showTextDocument(uri);
    const finding = (): vscode.Diagnostic | undefined => vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === 'test-time-network-install');
    await until('test-time-network-install on tests/test.sh', () => finding() !== undefined);
    await a.diagnostics.whenIdle();
    const d = finding();
    assert.ok(d);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((x) => x.title.startsWith('Install requests==2.32.3 in the image'));
    assert.ok(fix?.edit, `the move-to-image fix (got: ${actions.map((x) => x.title).join('; ')})`);
    assert.match(fix.title, /--break-system-packages/, 'the title says how it installs on this base');
    assert.ok(fix.command, 'the fix shows the file it changes');
    assert.equal(await vscode.workspace.applyEdit(fix.edit), true);
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));

    const shown = vscode.window.activeTextEditor;
    assert.equal(shown?.document.uri.fsPath, dockerfile, 'the Dockerfile is the active editor');
    assert.notEqual(shown.viewColumn, editor.viewColumn, 'opened beside the test script');
    assert.equal(shown.document.lineAt(shown.selection.start.line).text, 'RUN python3 -m pip install --no-cache-dir --break-system-packages requests==2.32.3', 'the new line is selected');
    assert.doesNotMatch(editor.document.getText(), /pip install requests/, 'the install left the verifier');
  });
});

describe('Generation report', () => {
  after(async () => { await vscode.commands.executeCommand('workbench.action.closeAllEditors'); });

  it('opens read-only under its own scheme, not as an unsaved document', async () => {
    await api();
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
    const report = {
      version: 1, request: { topic: 'log parsing with awk', count: 1, format: 'harbor', difficulty: 'medium', model: 'claude-sonnet-4-5', rounds: 2, batch: false },
      counts: { requested: 1, generated: 1, auditClean: 1, built: 1, oraclePasses: 1, nopFails: 1, stable: 1, accepted: 1, rejected: 0, errors: 0, cancelled: 0 },
      roundsUsed: 1, tokens: usage, costUsd: null,
      tasks: [{ slot: 1, id: 'awk-logs', outcome: 'accepted', rounds: 1, dir: 'tasks/awk-logs', reasons: [], failedGates: [], tokens: usage, costUsd: null }],
    } as unknown as YieldReport;
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('taskwright.generate.showReport', report);
    assert.ok(uri);
    assert.equal(uri.scheme, 'taskwright-report');
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.toString(), uri.toString());
    assert.equal(doc.isUntitled, false, 'not an unsaved buffer');
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.getText(), /log parsing with awk/);
    assert.match(doc.getText(), /"accepted": 1/);
    // A content provider's document: the editor shows it read-only, and there is nowhere to save it.
    assert.equal(vscode.workspace.fs.isWritableFileSystem('taskwright-report'), undefined, 'no file system behind the scheme');
    assert.equal(doc.isDirty, false);
  });
});

describe('Get started', () => {
  afterEach(async () => { await config().update('sandbox.engines', undefined, vscode.ConfigurationTarget.Global); });

  it('contributes a walkthrough whose steps run registered commands and ship their pages', async () => {
    await api();
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const pkg = ext.packageJSON as { contributes: { walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown?: string } }[] }[] } };
    const [walk] = pkg.contributes.walkthroughs;
    assert.ok(walk);
    assert.deepEqual(walk.steps.map((s) => s.id), ['engine', 'baseImages', 'apiKey', 'validate', 'band']);
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const s of walk.steps) {
      const commands = [...s.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]);
      assert.ok(commands.length > 0, `${s.id} has a button`);
      for (const c of commands) assert.ok(c && registered.has(c), `${s.id}: ${c} is registered`);
      assert.ok(s.media.markdown && fs.existsSync(path.join(ext.extensionPath, s.media.markdown)), `${s.id}: its page ships`);
    }
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${walk.id}`, false);
  });

  it('Check Docker Engine and Base Images: the engine answers and holds the examples\' base image; an engine that does not answer is named', async function () {
    this.timeout(60_000);
    const a = await api();
    type Result = { engines: { endpoint: string; reachable: boolean; images: { image: string; present: boolean; tasks: string[] }[] }[]; problems: string[] };
    const ok = await vscode.commands.executeCommand<Result>('taskwright.engine.check');
    assert.equal(ok.engines.length, 1);
    assert.equal(ok.engines[0]?.reachable, true);
    const debian = ok.engines[0]?.images.find((i) => i.image === 'debian:bookworm-slim');
    assert.ok(debian?.present, 'debian:bookworm-slim is there (scripts/base-images.sh)');
    assert.ok(debian.tasks.includes('word-frequency'));
    assert.ok(debian.tasks.length <= a.taskExplorer.taskIds().length);
    assert.deepEqual(ok.problems, []);

    await config().update('sandbox.engines', ['tcp://127.0.0.1:9'], vscode.ConfigurationTarget.Global);
    const down = await vscode.commands.executeCommand<Result>('taskwright.engine.check');
    assert.equal(down.engines[0]?.reachable, false);
    assert.match(down.problems.join('\n'), /tcp:\/\/127\.0\.0\.1:9 does not answer .*start it/);
  });
});
