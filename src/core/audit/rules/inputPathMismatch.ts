/**
 * input-path-mismatch: the solution and the tests both read an input at a path where nothing puts it,
 * while the image puts a file of that name somewhere else (`COPY data /app/data`, then
 * `open("/app/transactions.csv")`): the oracle fails on a file that is not there, and so does every
 * agent that follows the instruction to the letter.
 */
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { writes } from './fileWrites';
import { imageLayout, madeByImage } from './imageLayout';
import { DATA } from './recomputedExpected';

/** An absolute path as written in code (quotes, spaces or parentheses around it); kept when it names a data file. */
const ABSOLUTE_PATH = /(?<![\w./-])(\/(?:[\w.-]+\/)*[\w.-]+)(?![\w./-])/g;

/** Folders the harness fills or that hold run-time scratch: not inputs the image is to supply. */
const HARNESS = /^\/(tests|logs|solution|oracle|tmp|proc|sys|dev|output|outputs|results)(\/|$)/;

function pathsIn(text: string): Set<string> {
  return new Set([...text.matchAll(ABSOLUTE_PATH)].map((m) => m[1] ?? '').filter((p) => DATA.test(p) && !HARNESS.test(p)));
}

export const inputPathMismatch: StaticRule = {
  id: 'input-path-mismatch', class: 'invalidity', severity: 'warning',
  title: 'The solution and the tests read an input where the image does not put it',
  *check(ctx: AuditContext) {
    // A compose file can mount files the Dockerfile does not show; a prebuilt image is not read.
    if (!ctx.dockerfile() || ctx.task.environment.composeFile) return;
    const solutionFiles = ctx.task.files.filter((f) => f.startsWith('solution/') && /\.(sh|py)$/.test(f));
    const testFiles = [...ctx.testPython, ...ctx.verifierScripts];
    const solutionText = solutionFiles.map((f) => ctx.text(f) ?? '').join('\n');
    if (solutionText === '') return;
    const dfText = ctx.text(ctx.task.environment.dockerfile) ?? '';
    const { files } = imageLayout(ctx);
    const reported = new Set<string>();
    for (const file of testFiles) {
      const text = ctx.text(file) ?? '';
      for (const p of pathsIn(text)) {
        if (reported.has(p) || !solutionText.includes(p) || madeByImage(ctx, p)) continue;
        if (writes(solutionText, p) || writes(text, p) || dfText.includes(p)) continue;
        const base = p.slice(p.lastIndexOf('/') + 1);
        const elsewhere = [...files.keys()].find((f) => f !== p && f.endsWith(`/${base}`));
        if (!elsewhere) continue;
        reported.add(p);
        const at = text.indexOf(p);
        // The COPY that puts the file elsewhere, shown beside the finding (a reader fixes either place).
        const df = ctx.task.environment.dockerfile;
        const copyLine = files.get(elsewhere)?.line;
        const related = df && copyLine !== undefined ? [{ file: df, range: { start: { line: copyLine, character: 0 }, end: { line: copyLine, character: (dfText.split('\n')[copyLine] ?? '').length } }, message: `the image puts ${base} at ${elsewhere}` }] : [];
        yield {
          file, range: ctx.range(file, at, at + p.length), related,
          message: `The tests and the solution read ${p}, but the image puts ${base} at ${elsewhere} and nothing creates ${p}: the oracle fails on a missing file, as does an agent that follows the instruction's path. Read ${elsewhere}, or copy the file to ${p} in the Dockerfile.`,
        };
      }
    }
  },
};
