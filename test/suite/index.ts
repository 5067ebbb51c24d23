// Entry point that VS Code's extension host loads from `extensionTestsPath` (out/test/suite): it runs
// every `*.test.js` under this folder with mocha, inside the real extension host, next to the real
// extension. The rig (test/vscode/run-integration.mjs) names a file in TASKWRIGHT_TEST_RESULTS and
// reads the summary written there; without it (e.g. @vscode/test-cli on a desktop) only the
// rejection of run() reports failures.
import fs from 'node:fs';
import path from 'node:path';

// mocha 12's package entry is ESM; its CommonJS build is required directly so the class (not a
// module namespace) comes back in this CommonJS bundle.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Mocha: typeof import('mocha') = require('mocha/lib/mocha.cjs');

export interface SuiteSummary {
  passed: number;
  failed: number;
  pending: number;
  failures: { title: string; error: string }[];
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

function writeSummary(summary: SuiteSummary): void {
  const file = process.env.TASKWRIGHT_TEST_RESULTS;
  if (file) fs.writeFileSync(file, JSON.stringify(summary, null, 2));
}

export function run(): Promise<void> {
  // The grep lets a contributor run one case: TASKWRIGHT_TEST_GREP="Task Explorer" npm run test:vscode.
  const grep = process.env.TASKWRIGHT_TEST_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, ...(grep ? { grep } : {}) });
  const files = testFiles(__dirname);
  for (const f of files) mocha.addFile(f);
  const summary: SuiteSummary = { passed: 0, failed: 0, pending: 0, failures: [] };
  return new Promise((resolve, reject) => {
    if (files.length === 0) {
      summary.failed = 1;
      summary.failures.push({ title: 'test discovery', error: `no *.test.js files under ${__dirname}` });
      writeSummary(summary);
      reject(new Error(`no *.test.js files under ${__dirname} — did the build run?`));
      return;
    }
    try {
      const runner = mocha.run((failures) => {
        writeSummary(summary);
        if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed`));
        else resolve();
      });
      runner.on('pass', () => { summary.passed += 1; });
      runner.on('pending', () => { summary.pending += 1; });
      runner.on('fail', (test, err: unknown) => {
        summary.failed += 1;
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        summary.failures.push({ title: test.fullTitle(), error });
      });
    } catch (e) {
      summary.failed += 1;
      summary.failures.push({ title: 'loading the test files', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      writeSummary(summary);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
