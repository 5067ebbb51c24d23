// The Task Explorer, as a user sees it: the Taskwright activity-bar container, the tree listing the
// example tasks, and the extension's commands in the palette.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const CONTAINER_ID = 'taskwright';
const VIEW_ID = 'taskwright.tasks';

/** Titles as the manifest gives them, so renaming a view or a command does not break the cases. */
function names(manifest) {
  const c = manifest.contributes ?? {};
  const container = (c.viewsContainers?.activitybar ?? []).find((v) => v.id === CONTAINER_ID);
  const view = (c.views?.[CONTAINER_ID] ?? []).find((v) => v.id === VIEW_ID);
  assert.ok(container, `package.json contributes no activity-bar container "${CONTAINER_ID}"`);
  assert.ok(view, `package.json contributes no view "${VIEW_ID}" in the "${CONTAINER_ID}" container`);
  return { container: container.title, view: view.name };
}

/** "Category: Title" as the palette shows it. */
const paletteTitle = (cmd) => (cmd.category ? `${cmd.category}: ${cmd.title}` : cmd.title);

/** Commands the palette offers without any context: no commandPalette menu entry restricts them. */
function paletteCommands(manifest) {
  const restricted = new Set((manifest.contributes?.menus?.commandPalette ?? []).map((m) => m.command));
  return (manifest.contributes?.commands ?? []).filter((c) => !restricted.has(c.command) && !c.enablement);
}

async function taskRows(wb, viewName, ids) {
  // The tree fills once the extension has indexed the workspace: wait until every example shows.
  const until = Date.now() + 30_000;
  let rows = [];
  for (;;) {
    rows = await wb.treeRows(viewName);
    const labels = new Set(rows.map((r) => r.label));
    if (ids.every((id) => labels.has(id)) || Date.now() > until) return rows;
    await wb.page.waitForTimeout(500);
  }
}

export default [
  {
    name: 'Taskwright container shows the Task Explorer',
    async run({ wb, manifest }) {
      const { container, view } = names(manifest);
      await wb.openViewContainer(container);
      await wb.view(view);
    },
  },
  {
    name: 'Task Explorer lists every example task',
    async run({ wb, manifest, examples, log }) {
      const { container, view } = names(manifest);
      assert.ok(examples.length > 0, 'no example tasks found under examples/');
      await wb.openViewContainer(container);
      const ids = examples.map((e) => e.id);
      const rows = await taskRows(wb, view, ids);
      const shot = await wb.screenshot('task-explorer');
      log(`  ${rows.length} rows: ${rows.map((r) => r.label).join(', ')} (${shot})`);
      const labels = new Set(rows.map((r) => r.label));
      assert.deepEqual(ids.filter((id) => !labels.has(id)), [], 'example tasks missing from the Task Explorer');
    },
  },
  {
    name: 'palette offers every Taskwright command',
    async run({ wb, manifest }) {
      const commands = paletteCommands(manifest);
      assert.ok(commands.length > 0, 'package.json contributes no command for the palette');
      const missing = [];
      for (const cmd of commands) {
        const title = paletteTitle(cmd);
        const labels = await wb.paletteMatches(title);
        if (!labels.some((l) => l.includes(title))) missing.push(title);
      }
      assert.deepEqual(missing, [], 'contributed commands the palette does not offer');
    },
  },
  {
    name: 'Open Task Instruction from the palette opens the picked task',
    run: (ctx) => openInstruction.run(ctx),
  },
  {
    name: 'refresh from the palette keeps the example tasks listed',
    async run({ wb, manifest, examples }) {
      const { container, view } = names(manifest);
      const refresh = (manifest.contributes?.commands ?? []).find((c) => /refresh/i.test(c.command));
      assert.ok(refresh, 'package.json contributes no refresh command');
      await wb.runCommand(paletteTitle(refresh));
      await wb.openViewContainer(container);
      const rows = await taskRows(wb, view, examples.map((e) => e.id));
      const labels = new Set(rows.map((r) => r.label));
      assert.deepEqual(examples.map((e) => e.id).filter((id) => !labels.has(id)), []);
    },
  },
];

// A command that asks: F1 → "Open Task Instruction" → pick a task in the quick pick → its
// instruction opens in an editor.
export const openInstruction = {
  name: 'Open Task Instruction from the palette opens the picked task',
  async run({ wb, manifest, examples }) {
    const harbor = examples.find((e) => e.format === 'harbor');
    assert.ok(harbor, 'no Harbor example task (instruction.md) to open');
    const cmd = (manifest.contributes?.commands ?? []).find((c) => c.command === 'taskwright.task.open');
    assert.ok(cmd, 'package.json contributes no taskwright.task.open');
    await wb.runCommand(paletteTitle(cmd), { thenQuickPick: true });
    await wb.quickPick('Open which task?', harbor.id);
    const firstLine = fs.readFileSync(path.join(harbor.dir, 'instruction.md'), 'utf8').split('\n').find((l) => l.trim()) ?? '';
    let editor = await wb.activeEditor();
    for (let i = 0; i < 20 && !editor.title.startsWith('instruction.md'); i++) {
      await wb.page.waitForTimeout(250);
      editor = await wb.activeEditor();
    }
    assert.match(editor.title, /^instruction\.md/);
    assert.ok(editor.text.includes(firstLine.trim().slice(0, 40)), `editor shows "${firstLine.trim()}"; it shows:\n${editor.text.slice(0, 300)}`);
    await wb.screenshot('open-task-instruction');
  },
};
