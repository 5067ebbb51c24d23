// @vscode/test-cli configuration: `npx vscode-test` (after `npm run build`) downloads desktop VS Code
// and runs the same extension-host suite as `npm run test:vscode` (which uses code-server offline,
// test/vscode/run-integration.mjs). Needs internet for the download; CI and offline machines use the rig.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'extension-host',
  files: 'out/test/suite/**/*.test.js',
  version: '1.100.3',
  workspaceFolder: './examples',
  mocha: { ui: 'bdd', timeout: 60_000, color: true },
  launchArgs: ['--disable-extensions', '--disable-workspace-trust'],
});
