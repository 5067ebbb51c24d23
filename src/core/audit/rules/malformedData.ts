/**
 * malformed-data-file: a JSON or YAML file of the tests or solution that does not parse (an error only
 * when something of the task loads it), or a data file that holds the script meant to make it.
 */
import { parseAllDocuments } from 'yaml';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { scriptAsDataFiles } from './dataFiles';

/** JSON that only Python's extensions (bare NaN, Infinity, -Infinity values) keep from parsing. */
function parsesAsPythonJson(t: string): boolean {
  if (!/\b(NaN|Infinity)\b/.test(t)) return false;
  // Replace the bare tokens outside strings with null and parse again.
  const swapped = t.replace(/"(?:[^"\\]|\\.)*"|-?\b(?:NaN|Infinity)\b/g, (m) => (m.startsWith('"') ? m : 'null'));
  try { JSON.parse(swapped); return true; } catch { return false; }
}

/** A path whose folder or name says the file is meant not to parse (tests/fixtures/malformed/x.json, broken.yaml). */
const DELIBERATELY_BAD = /(^|[/_.-])(malformed|invalid|broken|corrupt(ed)?|bad|truncated)([/_.-]|$)/i;

/** Files their tools read without being named (a package manifest, a lock file). */
const READ_BY_TOOL = /(^|\/)(package(-lock)?\.json|composer\.json|pnpm-lock\.yaml|environment\.ya?ml|pubspec\.yaml)$/;
const LOADER_FILE = /\.(py|sh|bash|js|mjs|cjs|ts|rb|go|rs|java|r|R|jl|ipynb|toml|cfg|ini|txt|md)$|(^|\/)Dockerfile[^/]*$/;

/** Whether anything of the task loads `file`: its tool reads it, or a script, build file or the instruction names it or its folder. */
export function loaded(ctx: AuditContext, file: string): boolean {
  // The compose file the format reads (Harbor: environment/docker-compose.yaml, not a .yml beside it).
  if (READ_BY_TOOL.test(file) || file === ctx.task.environment.composeFile) return true;
  const parts = file.split('/');
  const base = parts[parts.length - 1] ?? '';
  // A name another file of the task also has (solution/oracle.json beside tests/oracle.json) is
  // ambiguous: then only a mention with its folder (`solution/oracle.json`) is one of this file.
  const twin = ctx.task.files.some((f) => f !== file && f.endsWith(`/${base}`));
  const name = twin ? parts.slice(-2).join('/') : base;
  // The folder counts when it is more specific than the tests or solution root (tests/data/*.json read by a glob).
  const folder = parts.length > 2 ? parts[parts.length - 2] ?? '' : '';
  const mentions = (t: string): boolean => t.includes(name) || (folder !== '' && t.includes(folder));
  if (mentions(ctx.instruction() ?? '')) return true;
  return ctx.textFiles().some((t) => t !== file && LOADER_FILE.test(t) && mentions(ctx.text(t) ?? ''));
}

/**
 * Whether a test of the task refers to the file (by name, or by its folder's name) and so is the one
 * that feeds it to the code under test: a deliberately malformed fixture is its input, not a defect.
 */
function usedByTests(ctx: AuditContext, file: string, tests: string): boolean {
  const parts = file.split('/');
  const names = [parts[parts.length - 1] ?? '', parts[parts.length - 2] ?? ''].filter((n) => n !== '' && DELIBERATELY_BAD.test(n));
  return ctx.textFiles().some((t) => t !== file && t.startsWith(`${tests}/`) && /\.(py|sh|js|ts|rb|go)$/.test(t)
    && names.some((n) => (ctx.text(t) ?? '').includes(n)));
}

/**
 * Files whose format is JSON with comments and trailing commas by convention (VS Code's settings, the
 * TypeScript and devcontainer configs, asv's benchmark config): their readers accept both.
 */
const JSONC_NAME = /(^|\/)(\.vscode\/[^/]+|\.devcontainer\/[^/]+|devcontainer|[jt]sconfig(\.[\w.-]+)?|asv\.conf|\.eslintrc|\.babelrc|\.swcrc|biome|deno|language-configuration)\.json$/i;

function parsesAsJsonc(t: string): boolean {
  const errors: ParseError[] = [];
  parseJsonc(t, errors, { allowTrailingComma: true, disallowComments: false });
  return errors.length === 0;
}

/** The first error of a YAML stream; `---`-separated documents (Kubernetes manifests) are one valid file. */
function yamlError(t: string): { message: string; offset: number } | undefined {
  for (const doc of parseAllDocuments(t)) {
    const e = doc.errors[0];
    if (e) return { message: e.message.split('\n')[0] ?? e.message, offset: e.pos[0] };
  }
  return undefined;
}

export const malformedDataFile: StaticRule = {
  id: 'malformed-data-file', class: 'invalidity', severity: 'error',
  title: 'A JSON or YAML file in the tests or solution does not parse, or a data file holds the script meant to make it',
  *check(ctx) {
    const tests = ctx.testsDir;
    for (const f of ctx.textFiles()) {
      if (!(f.startsWith(`${tests}/`) || f.startsWith('solution/'))) continue;
      const t = ctx.text(f) ?? '';
      let bad: { message: string; offset: number } | undefined;
      if (/\.json$/i.test(f)) {
        // Python's json (what the tests load it with) reads the NaN / Infinity / -Infinity it writes.
        try { JSON.parse(t); } catch (e) {
          if (parsesAsPythonJson(t) || (JSONC_NAME.test(f) && parsesAsJsonc(t))) continue;
          const m = /position (\d+)/.exec(String(e));
          bad = { message: `not valid JSON (${e instanceof Error ? e.message : String(e)})`, offset: m ? Number(m[1]) : 0 };
        }
      } else if (/\.ya?ml$/i.test(f)) {
        const e = yamlError(t);
        if (e) bad = { message: `not valid YAML (${e.message})`, offset: e.offset };
      }
      if (!bad) continue;
      // A fixture named malformed/broken/invalid is meant not to parse: when a test uses it, it is the
      // input of a malformed-record check (nothing to report); otherwise a note to confirm it is meant.
      const meant = DELIBERATELY_BAD.test(f);
      if (meant && usedByTests(ctx, f, tests)) continue;
      const off = Math.min(bad.offset, t.length);
      const range = ctx.range(f, off, Math.min(off + 1, t.length));
      if (meant) { yield { file: f, range, severity: 'info', message: `${f} is ${bad.message}; its name says it is meant to be, but no test refers to it.` }; continue; }
      // Certain only for a file something loads: one no script, build step or instruction names (a
      // library's own config, a leftover) breaks nothing the verdict depends on, so it is a note.
      yield loaded(ctx, f)
        ? { file: f, range, message: `${f} is ${bad.message}: tests that load it fail for everyone.` }
        : { file: f, range, severity: 'info', message: `${f} is ${bad.message}; no test, solution, build step or instruction names it, so check whether anything reads it.` };
    }
    yield* scriptAsDataFiles(ctx);
  },
};
