// Drives the VS Code web workbench the way a person does (palette, activity bar, views, panels) and
// reads what it shows from the DOM. e2e cases get one Workbench; add helpers here, not in cases.
import fs from 'node:fs';
import path from 'node:path';

export class Workbench {
  /** @param {import('playwright-core').Page} page @param {string} shotsDir */
  constructor(page, shotsDir) {
    this.page = page;
    this.shotsDir = shotsDir;
  }

  /** Waits for the workbench shell and for the remote extension host to be connected. */
  async ready(timeout = 90_000) {
    await this.page.locator('.monaco-workbench').waitFor({ timeout });
    await this.page.locator('.statusbar').waitFor({ timeout });
  }

  /**
   * F1, type the command's title, Enter: the command runs exactly as from the keyboard. A command
   * that asks with a quick pick leaves the widget open: pass `thenQuickPick` and call quickPick().
   */
  async runCommand(title, { timeout = 20_000, thenQuickPick = false } = {}) {
    const input = this.page.locator('.quick-input-widget input.input');
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    await input.waitFor({ timeout });
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ timeout });
    const label = (await row.getAttribute('aria-label')) ?? '';
    if (!label.includes(title)) throw new Error(`palette's first match for "${title}" is "${label}"`);
    await this.page.keyboard.press('Enter');
    if (!thenQuickPick) await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout });
  }

  /** Answers the quick pick whose placeholder is `placeholder` by choosing the item labelled `label`. */
  async quickPick(placeholder, label, { timeout = 20_000 } = {}) {
    const input = this.page.locator(`.quick-input-widget input.input[placeholder="${placeholder}"]`);
    await input.waitFor({ timeout });
    await input.fill(label);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { has: this.page.locator('.label-name', { hasText: label }) }).first();
    await row.waitFor({ timeout });
    await row.click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout });
  }

  /** The active editor: its tab's title and the text of its visible lines. */
  async activeEditor({ timeout = 20_000 } = {}) {
    const tab = this.page.locator('.tabs-container .tab.active').first();
    await tab.waitFor({ timeout });
    const lines = this.page.locator('.editor-instance .monaco-editor .view-lines').first();
    await lines.waitFor({ timeout });
    return {
      title: ((await tab.getAttribute('aria-label')) ?? '').trim(),
      // Monaco renders spaces as no-break spaces.
      text: (await lines.innerText()).replace(/\u00a0/g, ' '),
    };
  }

  /** Titles of the palette's matches for `text` (the palette is closed again). */
  async paletteMatches(text, { timeout = 20_000 } = {}) {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input.input');
    await input.waitFor({ timeout });
    await input.fill(`>${text}`);
    const rows = this.page.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor({ timeout });
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    await this.page.keyboard.press('Escape');
    return labels;
  }

  /** Clicks the activity-bar entry whose label starts with `title` (e.g. the Taskwright container). */
  async openViewContainer(title, { timeout = 30_000 } = {}) {
    const item = this.page.locator(`.activitybar .action-item a.action-label[aria-label^="${title}"]`).first();
    await item.waitFor({ timeout });
    const entry = item.locator('xpath=..');
    if ((await entry.getAttribute('aria-selected')) !== 'true' && !(await entry.evaluate((e) => e.classList.contains('checked')))) {
      await item.click();
    }
  }

  /** The pane (view) titled `title` in the side bar or panel; expanded if it was collapsed. */
  async view(title, { timeout = 30_000 } = {}) {
    // A container with a single view hides the pane header and shows "CONTAINER: VIEW" as its own
    // title, so the header is looked up attached, not visible, and only clicked when it shows.
    const header = this.page.locator('.pane-header', { hasText: title }).first();
    await header.waitFor({ state: 'attached', timeout });
    if ((await header.isVisible()) && (await header.getAttribute('aria-expanded')) === 'false') await header.click();
    const pane = header.locator('xpath=..');
    await pane.locator('.pane-body').waitFor({ timeout });
    return pane;
  }

  /**
   * The rows a tree view shows: `{ label, description, level, expanded }` from the DOM (only rendered,
   * i.e. visible, rows). Waits until at least `minRows` are there.
   */
  async treeRows(viewTitle, { minRows = 1, timeout = 30_000 } = {}) {
    const pane = await this.view(viewTitle, { timeout });
    const rows = pane.locator('.pane-body .monaco-list-row');
    if (minRows > 0) await rows.nth(minRows - 1).waitFor({ timeout });
    return rows.evaluateAll((els) => els.map((e) => ({
      label: e.querySelector('.label-name')?.textContent?.trim() ?? e.textContent?.trim() ?? '',
      description: e.querySelector('.label-description')?.textContent?.trim() ?? '',
      level: Number(e.getAttribute('aria-level') ?? '0'),
      expanded: e.getAttribute('aria-expanded') === null ? undefined : e.getAttribute('aria-expanded') === 'true',
    })));
  }

  /** Opens the Problems panel and returns its rows' accessible labels (file and marker rows). */
  async problems({ timeout = 20_000 } = {}) {
    await this.runCommand('Problems: Focus on Problems View', { timeout });
    const panel = this.page.locator('.markers-panel');
    await panel.waitFor({ timeout });
    return panel.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  }

  /** Toast notifications currently shown, as text. */
  async notifications() {
    return this.page.locator('.notification-toast').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
  }

  /**
   * The active webview's own document: VS Code hosts it in `iframe.webview`, which loads the
   * extension's HTML into `#active-frame`. With several webviews open, pass the outer iframe's index.
   */
  webview(index = 0) {
    return this.page.frameLocator('iframe.webview').nth(index).frameLocator('#active-frame');
  }

  /** Saves a PNG of the whole workbench under the run's screenshot folder; returns its path. */
  async screenshot(name) {
    fs.mkdirSync(this.shotsDir, { recursive: true });
    const file = path.join(this.shotsDir, `${name}.png`);
    await this.page.mouse.move(700, 450); // no hover tooltip over what the picture is for
    await this.page.screenshot({ path: file });
    return file;
  }
}
