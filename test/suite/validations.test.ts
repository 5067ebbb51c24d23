// Runs inside the real VS Code extension host with `examples/` open: a validation's verdicts are kept
// in the results store (`<run>/validation.json`), so a validation of an earlier session — or of
// `taskwright validate` in a terminal — shows as the task's status and as diagnostics with the rule's
// page linked, without rerunning anything; deleting that run takes them away again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, assertLinksRulePage, codeOf, until, workspaceDir } from './helpers';

const SANDBOX_SOURCE = 'taskwright sandbox';
const TASK = 'word-frequency';

function sandboxDiagnostics(dir: string): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics().filter(([u]) => u.fsPath.startsWith(dir + path.sep)).flatMap(([, l]) => l.filter((d) => d.source === SANDBOX_SOURCE));
}

describe('Stored validations', () => {
  const runDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs', '20261127-100000-validate-stored');

  after(() => fs.rmSync(runDir(), { recursive: true, force: true }));

  it('shows a stored validation as status and diagnostics, and drops them with its run', async () => {
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    assert.equal(a.taskExplorer.status(dir).find((s) => s.source === 'validation'), undefined, 'no validation shown before');
    fs.mkdirSync(runDir(), { recursive: true });
    fs.writeFileSync(path.join(runDir(), 'run.json'), JSON.stringify({
      id: path.basename(runDir()), kind: 'validate', tasks: [`tasks/${TASK}`], attempts: 3, concurrency: 1, retries: 2,
      startedAt: '2026-11-27T10:00:00.000Z', finishedAt: '2026-11-27T10:05:00.000Z', pid: 1,
    }));
    fs.writeFileSync(path.join(runDir(), 'trials.jsonl'), '');
    fs.writeFileSync(path.join(runDir(), 'validation.json'), JSON.stringify({
      version: 1,
      tasks: [{
        path: `tasks/${TASK}`, id: TASK, verdict: 'misaligned',
        checks: [{ name: 'nop', status: 'fail', runs: 3, detail: 'nop scored 1' }, { name: 'oracle', status: 'pass', runs: 3, detail: '' }],
        findings: [{
          rule: 'nop-passes', class: 'misalignment', severity: 'error', message: 'stored: the tests pass without a solution',
          file: 'tests/test.sh', range: { start: { line: 3, character: 0 }, end: { line: 3, character: 12 } },
        }],
      }],
    }));

    await until('the stored verdict as the task\'s status', () => /last validation: misaligned \(nop\)/.test(a.taskExplorer.status(dir).find((s) => s.source === 'validation')?.summary ?? ''));
    assert.equal(a.taskExplorer.status(dir).find((s) => s.source === 'validation')?.level, 'error');
    await until('the stored finding in Problems', () => sandboxDiagnostics(dir).some((d) => codeOf(d) === 'nop-passes'));
    const d = sandboxDiagnostics(dir).find((x) => codeOf(x) === 'nop-passes');
    assert.ok(d);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.match(d.message, /^stored:/);
    assertLinksRulePage(d, 'nop-passes');
    // At the file and line the validation recorded.
    const [uri] = vscode.languages.getDiagnostics().find(([, l]) => l.includes(d)) ?? [];
    assert.equal(uri?.fsPath, path.join(dir, 'tests', 'test.sh'));
    assert.equal(d.range.start.line, 3);

    fs.rmSync(runDir(), { recursive: true, force: true });
    await until('the status gone with its run', () => a.taskExplorer.status(dir).find((s) => s.source === 'validation') === undefined);
    await until('the diagnostics gone with its run', () => sandboxDiagnostics(dir).length === 0);
  });
});
