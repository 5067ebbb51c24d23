import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LineIndex } from '../../src/core/model/positions';
import type { Fix } from '../../src/core/model/finding';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';

export const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/audit');

/** Copies a fixture task to a fresh temp folder and applies `files` (null deletes a file or a folder). */
export async function makeTask(base: string, files: Files): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tw-audit-'));
  const dest = path.join(dir, base);
  await fs.cp(path.join(FIXTURES, base), dest, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(dest, rel);
    if (text === null) await fs.rm(abs, { force: true, recursive: true });
    else {
      await fs.mkdir(path.dirname(abs), { recursive: true });
      await fs.writeFile(abs, text);
    }
  }
  return dest;
}

export async function removeTemp(taskDir: string): Promise<void> {
  await fs.rm(path.dirname(taskDir), { recursive: true, force: true });
}

/** Applies a fix's edits to the files on disk (edits in one file applied back to front). */
export async function applyFix(taskDir: string, fix: Fix): Promise<void> {
  const byFile = new Map<string, Fix['edits'][number][]>();
  for (const e of fix.edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  for (const [file, edits] of byFile) {
    const abs = path.join(taskDir, file);
    let text = await fs.readFile(abs, 'utf8');
    const li = new LineIndex(text);
    const spans = edits.map((e) => ({ s: li.offsetAt(e.range.start), e: li.offsetAt(e.range.end), t: e.newText })).sort((a, b) => b.s - a.s);
    for (const sp of spans) text = text.slice(0, sp.s) + sp.t + text.slice(sp.e);
    await fs.writeFile(abs, text);
  }
}

/** A fixture base that pattern cases edit. */
export type CaseBase = 'clean-harbor' | 'clean-tb1';

/** One pattern: the base fixture edited by `files`, and the findings of `rules` it must give (`rule severity line`). */
export interface PatternCase { readonly name: string; readonly base: CaseBase; readonly files: Files; readonly rules: readonly string[]; readonly want: readonly string[] }

/** `rule severity line` (1-based) of every finding of `rules` on the edited fixture. */
export async function findingsOf(base: CaseBase, files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    const found = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return found.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.range ? f.range.start.line + 1 : '-'}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

/** A verifier script that runs `body` and writes reward 1 when its last command succeeded. */
export const verifierScript = (body: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\n${body}\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

/** One `it` per case: the exact findings of its rules (`rule severity line`) on the edited fixture. */
export function describeCases(title: string, cases: readonly PatternCase[]): void {
  void describe(title, () => {
    for (const c of cases) {
      void it(c.name, async () => {
        assert.deepEqual(await findingsOf(c.base, c.files, c.rules), [...c.want].sort());
      });
    }
  });
}
