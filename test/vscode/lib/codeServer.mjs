// A hermetic code-server on 127.0.0.1: throwaway HOME/XDG/TMPDIR and user-data/extensions folders,
// no marketplace (EXTENSIONS_GALLERY='{}'), its own process group, killed as a whole at the end.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CODE_SERVER_DIR, assertRigInstalled } from './paths.mjs';

const ENTRY = path.join(CODE_SERVER_DIR, 'out/node/entry.js');

// User settings that keep the workbench quiet and off the network.
export const QUIET_SETTINGS = {
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'npm.fetchOnlinePackageInfo': false,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
};

const STALE_MS = 6 * 3600_000;

/** Run folders that a killed runner (SIGKILL, a closed terminal) could not remove. */
function sweepStaleRunDirs() {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!/^taskwright-(it|e2e|chromium)-/.test(name)) continue;
    const p = path.join(tmp, name);
    try { if (Date.now() - fs.statSync(p).mtimeMs > STALE_MS) fs.rmSync(p, { recursive: true, force: true }); } catch { /* raced */ }
  }
}

/** A fresh run folder under the system temp dir (short paths: VS Code puts unix sockets in TMPDIR). */
export function makeRunDir(prefix) {
  sweepStaleRunDirs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `taskwright-${prefix}-`));
  for (const sub of ['home/.config', 'home/.local/share', 'home/.cache', 'tmp', 'user-data/User', 'extensions']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  }
  // An empty config file is rejected ("invalid config: undefined").
  fs.writeFileSync(path.join(dir, 'config.yaml'), 'auth: none\n');
  return dir;
}

export function hermeticEnv(runDir, extra = {}) {
  return {
    ...process.env,
    HOME: path.join(runDir, 'home'),
    XDG_CONFIG_HOME: path.join(runDir, 'home/.config'),
    XDG_DATA_HOME: path.join(runDir, 'home/.local/share'),
    XDG_CACHE_HOME: path.join(runDir, 'home/.cache'),
    TMPDIR: path.join(runDir, 'tmp'),
    // An object without serviceUrl disables the marketplace (else code-server asks open-vsx.org).
    EXTENSIONS_GALLERY: '{}',
    ...extra,
  };
}

function baseArgs(runDir, extensionsDir) {
  return [
    '--config', path.join(runDir, 'config.yaml'),
    '--user-data-dir', path.join(runDir, 'user-data'),
    '--extensions-dir', extensionsDir ?? path.join(runDir, 'extensions'),
  ];
}

/** `code-server --install-extension VSIX` into the run's extensions folder (a local VSIX needs no gallery). */
export function installVsix(runDir, vsix, extensionsDir) {
  assertRigInstalled();
  return execFileSync(process.execPath, [ENTRY, ...baseArgs(runDir, extensionsDir), '--install-extension', vsix, '--force'],
    { env: hermeticEnv(runDir), encoding: 'utf8' }).trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/**
 * Starts code-server and resolves once /healthz answers.
 * @returns {Promise<{authority: string, url: string, pgid: number, log: string, stop: () => Promise<void>,
 *   remoteUri: (p: string) => string, workbenchUrl: (o: {folder: string, payload?: [string, string][]}) => string}>}
 */
export async function startCodeServer({ runDir, extensionsDir, env = {}, settings = QUIET_SETTINGS, startTimeoutMs = 60_000 }) {
  assertRigInstalled();
  fs.writeFileSync(path.join(runDir, 'user-data/User/settings.json'), JSON.stringify(settings, null, 2));
  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  const log = path.join(runDir, 'code-server.log');
  const fd = fs.openSync(log, 'w');
  const child = spawn(process.execPath, [
    ENTRY, ...baseArgs(runDir, extensionsDir),
    '--auth', 'none', '--bind-addr', authority,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
  ], { detached: true, stdio: ['ignore', fd, fd], env: hermeticEnv(runDir, env) });
  fs.closeSync(fd);
  const pgid = child.pid;

  // The group holds the server, its file watcher and the extension host; a watcher outlives its parent,
  // so the whole group is signalled. The exit hook covers a runner that dies before stop().
  const alive = () => { try { process.kill(-pgid, 0); return true; } catch { return false; } };
  const killNow = () => { try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ } };
  process.on('exit', killNow);
  const stop = async (graceMs = 5000) => {
    try { process.kill(-pgid, 'SIGTERM'); } catch { return; }
    const until = Date.now() + graceMs;
    while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (alive()) {
      killNow();
      for (let i = 0; i < 20 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    }
  };

  const started = Date.now();
  for (;;) {
    try { if ((await fetch(`http://${authority}/healthz`)).ok) break; } catch { /* not listening yet */ }
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode} before answering; its log:\n${fs.readFileSync(log, 'utf8').slice(-3000)}`);
    }
    if (Date.now() - started > startTimeoutMs) {
      await stop();
      throw new Error(`code-server did not answer /healthz within ${startTimeoutMs / 1000}s; log: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const remoteUri = (p) => `vscode-remote://${authority}${path.resolve(p)}`;
  // `payload` is the workbench's way (as in VS Code's own browser tests) to pass launch options such
  // as extensionDevelopmentPath/extensionTestsPath; code-server rejects them as command-line flags.
  const workbenchUrl = ({ folder, payload }) => {
    const q = new URLSearchParams({ folder: path.resolve(folder) });
    if (payload) q.set('payload', JSON.stringify(payload));
    return `http://${authority}/?${q}`;
  };
  return { authority, url: `http://${authority}`, pgid, log, stop, remoteUri, workbenchUrl, readyMs: Date.now() - started };
}
