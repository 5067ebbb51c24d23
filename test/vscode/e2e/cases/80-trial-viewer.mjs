// The trial viewer, as a user meets it: a workspace whose results store holds one Claude run (copied
// from test/fixtures/trials/runs), the Runs view expanded to its trial, a click on the trial row opens
// the Trial panel; j moves to the next step; screenshots of the panel in a light and a dark theme.
//
// The case opens its workspace in the same browser page and goes back to the folder it found when it
// ends, so it can run anywhere in the order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/paths.mjs';
import { pickColorTheme, until } from '../../lib/e2e.mjs';

const RUN = path.join(REPO_ROOT, 'test/fixtures/trials/runs/run-1');

function names(manifest) {
  const c = manifest.contributes ?? {};
  const container = (c.viewsContainers?.activitybar ?? []).find((v) => v.id === 'taskwright');
  const runs = (c.views?.taskwright ?? []).find((v) => v.id === 'taskwright.runs');
  const tasks = (c.views?.taskwright ?? []).find((v) => v.id === 'taskwright.tasks');
  assert.ok(container && runs && tasks, 'package.json contributes the Taskwright container with its Task Explorer and Runs views');
  return { container: container.title, runs: runs.name, tasks: tasks.name };
}

async function setTheme(page, wv, kind) {
  const name = kind === 'dark' ? 'Dark Modern' : 'Light Modern';
  await pickColorTheme(page, name);
  await wv.locator(`body.vscode-${kind}`).waitFor({ timeout: 20_000 });
  await page.waitForTimeout(400);
}

async function themeKind(wv) {
  const cls = (await wv.locator('body').getAttribute('class')) ?? '';
  return /vscode-dark/.test(cls) ? 'dark' : /vscode-light/.test(cls) ? 'light' : cls;
}

async function clickRow(pane, label) {
  const row = pane.locator('.monaco-list-row', { has: pane.page().locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
  await row.waitFor({ timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  await pane.page().waitForTimeout(300);
}

async function panelShot(wb, name) {
  fs.mkdirSync(wb.shotsDir, { recursive: true });
  const file = path.join(wb.shotsDir, `${name}.png`);
  await wb.page.mouse.move(5, 5);
  await wb.page.locator('iframe.webview').first().screenshot({ path: file });
  return file;
}

export default [
  {
    name: 'trial viewer: open a trial from the Runs view, j/k between steps, light and dark',
    async run({ wb, page, manifest, log }) {
      const { container, runs, tasks } = names(manifest);
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-e2e-trial-'));
      fs.cpSync(RUN, path.join(ws, '.taskwright/runs/20261130-100000-claude'), { recursive: true });
      const back = page.url();
      const url = new URL(back);
      url.searchParams.set('folder', ws);
      await page.goto(url.toString());
      await wb.ready();
      let original;
      try {
        await wb.runCommand('View: Close All Editors');
        await wb.openViewContainer(container);
        const tasksHeader = page.locator('.pane-header', { hasText: tasks }).first();
        await tasksHeader.waitFor({ timeout: 30_000 });
        if ((await tasksHeader.getAttribute('aria-expanded')) === 'true') await tasksHeader.click();
        const pane = await wb.view(runs);
        await until('the run in the Runs view', async () => {
          const r = await wb.treeRows(runs, { minRows: 1 });
          return { ok: r.some((x) => x.label === 'claude-sonnet-4-5'), value: r.map((x) => x.label) };
        });
        await clickRow(pane, 'claude-sonnet-4-5');
        await clickRow(pane, 'hello');
        // The trial row's click opens the viewer.
        await clickRow(pane, '#1 failed');
        const wv = wb.webview();
        await wv.locator('.step').first().waitFor({ timeout: 30_000 });
        assert.equal(await wv.locator('.step').count(), 4, 'four steps');
        assert.equal(await wv.locator('[data-testid="outcome"]').innerText(), 'failed');
        assert.equal(await wv.locator('.test.failing').count(), 1, 'one failing test highlighted');
        assert.match(await wv.locator('.test.failing').innerText(), /test_hello_content/);
        assert.ok((await wv.locator('.step .cut').count()) >= 1, 'the cut output is marked');
        assert.match(await wv.locator('.verifier .fail-line').first().innerText(), /^FAILED tests\/test_outputs\.py::test_hello_content/, 'the FAILED line of the summary is marked in the output');
        assert.equal(await wv.locator('.step.selected').getAttribute('data-step'), '1');

        // Keyboard: focus the panel, j twice, k once → step 2.
        await wv.locator('h1').click();
        await page.keyboard.press('j');
        await page.keyboard.press('j');
        await page.keyboard.press('k');
        await until('step 2 selected', async () => {
          const s = await wv.locator('.step.selected').getAttribute('data-step');
          return { ok: s === '2', value: s };
        });
        await page.keyboard.press('ArrowDown');
        await until('step 3 selected with the arrow key', async () => {
          const s = await wv.locator('.step.selected').getAttribute('data-step');
          return { ok: s === '3', value: s };
        });
        await page.keyboard.press('Home');
        log('  j/k and arrows move the selection between steps');

        const first = await themeKind(wv);
        original = first;
        const second = first === 'dark' ? 'light' : 'dark';
        const shots = [await panelShot(wb, `trial-viewer-${first}`)];
        await setTheme(page, wv, second);
        shots.push(await panelShot(wb, `trial-viewer-${second}`));
        // The lower half: the verifier with its failing test picked out, the reward file, the logs.
        await wv.locator('.verifier').evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await page.waitForTimeout(200);
        shots.push(await panelShot(wb, `trial-viewer-${second}-verifier`));
        log(`  screenshots: ${shots.map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
      } finally {
        if (original === 'dark' || original === 'light') {
          await setTheme(page, wb.webview(), original).catch(() => {});
        }
        await page.goto(back);
        await wb.ready();
        fs.rmSync(ws, { recursive: true, force: true });
      }
    },
  },
];
