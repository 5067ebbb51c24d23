// Helpers the e2e cases share: polling with a readable failure, and switching the colour theme
// through the palette as a user does.

/** Polls `fn` (returning `{ ok, value }`) every 250 ms until ok; fails with the last value. */
export async function until(what, fn, timeout = 30_000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last.ok) return last.value;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last.value)} after ${timeout / 1000}s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** F1 → "Preferences: Color Theme" → the theme named `name`; resolves once the picker has closed. */
export async function pickColorTheme(page, name) {
  const input = page.locator('.quick-input-widget input.input');
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await input.waitFor();
  await input.fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row[aria-label^="Preferences: Color Theme"]').first().click();
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Modern' }).first().waitFor({ timeout: 20_000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 20_000 });
}

/** `dark` or `light` as the workbench shows it (its root class). */
export async function workbenchThemeKind(page) {
  const cls = (await page.locator('.monaco-workbench').getAttribute('class')) ?? '';
  return /\bvs-dark\b/.test(cls) ? 'dark' : /\bvs\b/.test(cls) ? 'light' : cls;
}
