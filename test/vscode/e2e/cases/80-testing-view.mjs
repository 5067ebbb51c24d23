// The Testing view, as a user meets it after a reload: a validation kept in the results store
// (`<run>/validation.json`, as `taskwright validate` or an earlier session leaves it) shows in the
// Testing view as each task's last state — fix-service-config failed (its nop check: tests pass with
// no solution), word-frequency passed — without running anything. Expanded to the checks and
// screenshot in a dark and a light theme.
//
// The case writes its run into the open workspace's results store and removes it when it ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/paths.mjs';
import { pickColorTheme, until, workbenchThemeKind as themeKind } from '../../lib/e2e.mjs';

const RUN = '20261201-090000-validate-e2e-testing';
const ROWS = '.part.sidebar .pane-body .monaco-list-row';
const CHECKS = ['build', 'nop', 'oracle', 'agreement', 'reward-isolation', 'timeout-margin', 'mutants', 'environment', 'test-order', 'stale-state'];

function writeStoredValidation(workspace) {
  const dir = path.join(workspace, '.taskwright', 'runs', RUN);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({
    id: RUN, kind: 'validate', tasks: ['tasks/fix-service-config', 'tasks/word-frequency'], attempts: 1, concurrency: 1, retries: 2,
    startedAt: '2099-12-01T09:00:00.000Z', finishedAt: '2099-12-01T09:04:00.000Z', pid: 1,
  }));
  fs.writeFileSync(path.join(dir, 'trials.jsonl'), '');
  const pass = (name) => ({ name, status: 'pass', runs: 1, detail: '' });
  fs.writeFileSync(path.join(dir, 'validation.json'), JSON.stringify({
    version: 1,
    tasks: [
      {
        path: 'tasks/fix-service-config', id: 'fix-service-config', verdict: 'misaligned',
        checks: CHECKS.map((c) => (c === 'nop' ? { name: 'nop', status: 'fail', runs: 1, detail: 'nop scored 1 in 1 of 1 run' } : pass(c))),
        findings: [{
          rule: 'nop-passes', class: 'misalignment', severity: 'error', file: 'tests/test.sh',
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          message: 'The tests pass without a solution: an agent that does nothing earned reward 1 in 1 of 1 run.',
        }],
      },
      { path: 'tasks/word-frequency', id: 'word-frequency', verdict: 'valid', checks: CHECKS.map(pass), findings: [] },
    ],
  }));
  return dir;
}

/** The Testing view's rows: accessible label (name and state), level, expanded. */
async function testRows(page) {
  return page.locator(ROWS).evaluateAll((els) => els.map((e) => ({
    label: e.getAttribute('aria-label') ?? '',
    text: e.textContent?.trim() ?? '',
    level: Number(e.getAttribute('aria-level') ?? '0'),
    expanded: e.getAttribute('aria-expanded') === null ? undefined : e.getAttribute('aria-expanded') === 'true',
  })));
}

async function expandRow(page, text) {
  const row = page.locator(ROWS, { hasText: text }).first();
  await row.waitFor({ timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) === 'false') {
    await row.locator('.monaco-tl-twistie').click();
    await page.waitForTimeout(300);
  }
}

/** The theme named `name`, then a moment for the workbench to repaint. */
async function setTheme(page, name) {
  await pickColorTheme(page, name);
  await page.waitForTimeout(400);
}

export default [
  {
    name: 'Testing view: tasks as tests, last validation restored from the store, light and dark',
    async run({ wb, page, examples, log }) {
      const workspace = path.dirname(path.dirname(examples[0].dir));
      const runDir = writeStoredValidation(workspace);
      let original;
      try {
        await wb.runCommand('View: Close All Editors');
        // The flask in the activity bar: the Testing container with its Test Explorer.
        await wb.openViewContainer('Testing');
        await page.locator(ROWS).first().waitFor({ timeout: 30_000 });
        await until('the tasks dataset in the Testing view', async () => {
          const rows = await testRows(page);
          return { ok: rows.some((r) => r.text.startsWith('tasks')), value: rows.map((r) => r.text) };
        }, 60_000);
        await expandRow(page, 'tasks');
        const tasks = await until('the stored verdicts as test states', async () => {
          const rows = await testRows(page);
          const fix = rows.find((r) => r.text.startsWith('fix-service-config'));
          const wf = rows.find((r) => r.text.startsWith('word-frequency'));
          return { ok: /Failed/i.test(fix?.label ?? '') && /Passed/i.test(wf?.label ?? ''), value: rows.map((r) => r.label) };
        }, 60_000);
        log(`  rows: ${tasks.join(' | ')}`);
        await expandRow(page, 'fix-service-config');
        const checks = await until('the checks of fix-service-config', async () => {
          const rows = await testRows(page);
          return { ok: rows.some((r) => r.text.startsWith('nop fails')) && rows.some((r) => r.text.startsWith('oracle passes')), value: rows };
        });
        const nop = checks.find((r) => r.text.startsWith('nop fails'));
        const oracle = checks.find((r) => r.text.startsWith('oracle passes'));
        assert.match(nop?.label ?? '', /Failed/i, `nop row: ${nop?.label}`);
        assert.match(oracle?.label ?? '', /Passed/i, `oracle row: ${oracle?.label}`);
        const order = checks.filter((r) => r.level === 3).map((r) => r.text);
        log(`  checks: ${checks.filter((r) => r.level === 3).map((r) => r.label).join(' | ')}`);
        assert.deepEqual(order.slice(0, 3), ['build', 'nop fails', 'oracle passes'], 'checks in the order validate runs them');

        const first = await themeKind(page);
        original = first;
        const second = first === 'dark' ? 'light' : 'dark';
        const shots = [await wb.screenshot(`testing-view-${first}`)];
        await setTheme(page, second === 'dark' ? 'Dark Modern' : 'Light Modern');
        await until(`the workbench in ${second}`, async () => ({ ok: (await themeKind(page)) === second, value: await themeKind(page) }));
        shots.push(await wb.screenshot(`testing-view-${second}`));
        log(`  screenshots: ${shots.map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
      } finally {
        if (original === 'dark' || original === 'light') await setTheme(page, original === 'dark' ? 'Dark Modern' : 'Light Modern').catch(() => {});
        fs.rmSync(runDir, { recursive: true, force: true });
      }
    },
  },
];
