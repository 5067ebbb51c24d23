// Debian's chromium driven by playwright-core: headless, no sandbox (root in CI), resolving no host but
// loopback, with a throwaway HOME so nothing is written to the real one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumPath } from './paths.mjs';

export async function launchChromium() {
  // playwright refuses --user-data-dir in launch() and makes a fresh profile itself; Debian's chromium
  // still writes crash reports and dconf caches under HOME.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'taskwright-chromium-'));
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') },
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-default-apps',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost',
    ],
  });
  browser.on('disconnected', () => fs.rmSync(home, { recursive: true, force: true }));
  return browser;
}
