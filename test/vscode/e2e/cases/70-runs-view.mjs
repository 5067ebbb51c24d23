// The Runs view, as a user meets it: open the fixture workspace (test/fixtures/band/workspace, a results
// store of seven runs), see every run in the Taskwright container's Runs view, expand the Claude run and
// one of its tasks to read the trials (outcome, reward, duration, model, attempt, infra retries), and
// screenshot it in a dark and a light theme.
//
// The case opens the fixture workspace in the same browser page and goes back to the folder it found
// when it ends, so it can run anywhere in the order.
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT } from '../../lib/paths.mjs';
import { pickColorTheme, until, workbenchThemeKind as themeKind } from '../../lib/e2e.mjs';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/band/workspace');

function names(manifest) {
  const c = manifest.contributes ?? {};
  const container = (c.viewsContainers?.activitybar ?? []).find((v) => v.id === 'taskwright');
  const runs = (c.views?.taskwright ?? []).find((v) => v.id === 'taskwright.runs');
  const tasks = (c.views?.taskwright ?? []).find((v) => v.id === 'taskwright.tasks');
  assert.ok(container && runs && tasks, 'package.json contributes the Taskwright container with its Task Explorer and Runs views');
  return { container: container.title, runs: runs.name, tasks: tasks.name };
}

/** Clicks the Runs view row labelled `label` (expanding it) and waits for rows below it. */
async function expand(pane, label) {
  const row = pane.locator('.monaco-list-row', { has: pane.page().locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
  await row.waitFor({ timeout: 20_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  await pane.page().waitForTimeout(300);
}

/** The theme named `name`, then a moment for the workbench to repaint. */
async function setTheme(page, name) {
  await pickColorTheme(page, name);
  await page.waitForTimeout(400);
}

export default [
  {
    name: 'Runs view: runs → tasks → trials, light and dark',
    async run({ wb, page, manifest, log }) {
      const { container, runs, tasks } = names(manifest);
      const back = page.url();
      const url = new URL(back);
      url.searchParams.set('folder', FIXTURE);
      await page.goto(url.toString());
      await wb.ready();
      let original;
      try {
        await wb.runCommand('View: Close All Editors');
        await wb.openViewContainer(container);
        // A wider side bar, as someone reading trials would drag it.
        const bar = await page.locator('.part.sidebar').boundingBox();
        if (bar) {
          const x = bar.x + bar.width;
          await page.mouse.move(x + 1, bar.y + bar.height / 2);
          await page.mouse.down();
          await page.mouse.move(x + 260, bar.y + bar.height / 2, { steps: 8 });
          await page.mouse.up();
        }
        // Room for the runs: the Task Explorer is folded.
        const tasksHeader = page.locator('.pane-header', { hasText: tasks }).first();
        await tasksHeader.waitFor({ timeout: 30_000 });
        if ((await tasksHeader.getAttribute('aria-expanded')) === 'true') await tasksHeader.click();
        const pane = await wb.view(runs);

        const rows = await until('seven runs in the Runs view', async () => {
          const r = await wb.treeRows(runs, { minRows: 1 });
          return { ok: r.filter((x) => x.level === 1).length === 7, value: r.map((x) => x.label) };
        });
        log(`  runs: ${rows.join(', ')}`);
        assert.deepEqual(rows.slice(0, 2), ['policy-9b @ step-500', 'policy-9b @ step-400'], 'newest first');
        assert.ok(rows.includes('claude-sonnet') && rows.includes('validation'));

        await expand(pane, 'claude-sonnet');
        await expand(pane, 'echo');
        const drawn = await wb.treeRows(runs);
        const claude = drawn.find((r) => r.label === 'claude-sonnet');
        assert.match(claude?.description ?? '', /8 tasks · \d+\/\d+ passed · 3 infra/);
        const trials = drawn.filter((r) => r.level === 3).map((r) => `${r.label} — ${r.description}`);
        log(`  echo's trials: ${trials.join('; ')}`);
        assert.ok(trials.some((t) => /^#\d+ infra-error — no reward/.test(t)), 'the infra error is listed with no reward');
        assert.ok(trials.some((t) => /^#\d+ try 2 /.test(t)), 'its retry is listed as try 2');
        assert.ok(trials.every((t) => / · claude-sonnet/.test(t)), 'every trial names its model');
        // A validation runs oracle and nop side by side: each agent's attempts are counted apart.
        const validation = drawn.find((r) => r.label === 'validation');
        assert.match(validation?.description ?? '', /^8 tasks · nop 0\/8 · oracle 7\/8 · /);

        const first = await themeKind(page);
        original = first;
        const second = first === 'dark' ? 'light' : 'dark';
        const shots = [await wb.screenshot(`runs-view-${first}`)];
        await setTheme(page, second === 'dark' ? 'Dark Modern' : 'Light Modern');
        await until(`the workbench in ${second}`, async () => ({ ok: (await themeKind(page)) === second, value: await themeKind(page) }));
        shots.push(await wb.screenshot(`runs-view-${second}`));
        log(`  screenshots: ${shots.map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
      } finally {
        if (original === 'dark' || original === 'light') await setTheme(page, original === 'dark' ? 'Dark Modern' : 'Light Modern').catch(() => {});
        await page.goto(back);
        await wb.ready();
      }
    },
  },
];
