import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { placeholderSolution } from './dockerfile';
import { inFolders } from '../../model/vendored';

/**
 * Environment data that a generator wrote as chat or as the script meant to make it: a `.crt` that
 * opens with "I'll help you create…", a `.npy` that is Python source. The task then has nothing real
 * to work on. Decided from the first bytes only, so large data costs one small read.
 */

/** Files whose content is data, not prose or code: by extension, or with none (trace streams, dumps). */
const DATA_FILE = /\.(crt|pem|cer|key|csr|der|db|sqlite3?|img|iso|bin|dat|raw|dump|log|csv|tsv|txt|jsonl|json|xml|npy|npz|pkl|pickle|parquet|h5|hdf5|pcap|pcapng|gz|zip|tar|wav|mp3|mp4|png|jpe?g|gif|pdf|elf|so|o|a|core|trace|ctf)$|(^|\/)[^./]+(_\d+)?$/i;

/** Names that are code or configuration even without an extension. */
const NOT_DATA = /(^|\/)(Dockerfile|Containerfile|Makefile|Rakefile|Gemfile|Procfile|Jenkinsfile|Vagrantfile|LICENSE|COPYING|README|CHANGELOG|AUTHORS|NOTICE|VERSION|\.[^/]*)$/;

/** A generator talking about the file instead of writing it: first person, or a "here is the file" preface. */
const CHAT_OPENING = /^\s*(?:(?:I'll|I will|I need to|I'm going to|I am going to|Let me|Since I (?:cannot|can't|need))\b|File content for\b|Here(?:'s| is) (?:the|a|an|your) [^\n]{0,60}\b(?:file|content|code|script|data)\b)/;

/** The head of a Python program: a shebang, imports, or a docstring followed by imports. */
const PYTHON_SOURCE = /^(?:#![^\n]*\bpython[\d.]*\b[^\n]*\n|(?:import [\w.]+(?: as \w+)?(?:, [\w.]+(?: as \w+)?)*|from [\w.]+ import [\w*, ]+)\s*\n)/;

/**
 * Code by its name: a code extension, last or before a text one (`test_x.py.txt`, `main.c.txt`: a
 * listing kept as text says what it holds).
 */
const CODE_NAME = /\.(md|py|sh|js|ts|go|rs|c|h|cpp|java|rb)(\.(txt|bak|orig|log))?$/;

/** Data files of the build context (not the tests or the solution, which the agent never reads as data). */
function environmentDataFiles(ctx: AuditContext): string[] {
  const tests = ctx.testsDir;
  const envDir = (ctx.task.environment.contextDir || '.').replace(/^\.\/?/, '').replace(/\/+$/, '');
  return ctx.task.files.filter((f) => (envDir === '' || f.startsWith(`${envDir}/`))
    && !f.startsWith(`${tests}/`) && !f.startsWith('solution/') && !/^solution\.(sh|ya?ml)$/.test(f) && !/^steps\//.test(f)
    && DATA_FILE.test(f) && !NOT_DATA.test(f) && !CODE_NAME.test(f) && !inFolders(f, ctx.vendored));
}

/** llm-artifact-in-task: a data file that opens with a generator's chat. */
export function* chatDataFiles(ctx: AuditContext): Generator<Report> {
  for (const f of environmentDataFiles(ctx)) {
    const head = ctx.head(f);
    const m = head === undefined ? null : CHAT_OPENING.exec(head);
    if (!m) continue;
    // Point at the generator's first-person sentence when a heading ("File content for …") precedes it.
    const h = head ?? '';
    const me = /^[ \t]*(?:I'll|I will|I need to|I'm going to|Let me)\b/m.exec(h.slice(0, 400));
    const at = me ? me.index : 0;
    const first = h.slice(at).split('\n')[0]?.trim().slice(0, 60) ?? '';
    yield { file: f, range: ctx.range(f, at, at + first.length),
      message: `${f} opens with a generator's chat ("${first}…") instead of its data: whatever the task asks about this file has nothing real to work on.` };
  }
}

/** malformed-data-file: a data file that holds the Python script meant to generate it. */
export function* scriptAsDataFiles(ctx: AuditContext): Generator<Report> {
  for (const f of environmentDataFiles(ctx)) {
    // A file without an extension that starts like Python is a program (a tool on PATH), not data.
    if (!/\.[A-Za-z0-9]+$/.test(f.slice(f.lastIndexOf('/') + 1))) continue;
    const head = ctx.head(f);
    if (head === undefined || !PYTHON_SOURCE.test(head.replace(/^\uFEFF/, ''))) continue;
    // The build may run it to make the real file (`RUN python3 data/make.bin`): then it is a generator.
    const base = f.slice(f.lastIndexOf('/') + 1);
    if ((ctx.text(ctx.task.environment.dockerfile) ?? '').split('\n').some((l) => /\bpython[\d.]*\s/.test(l) && l.includes(base))) continue;
    yield { severity: 'warning', file: f, range: ctx.range(f, 0, Math.min(head.indexOf('\n') < 0 ? head.length : head.indexOf('\n'), 80)),
      message: `${f} is Python source (the script meant to generate it), not the data its name says: nothing can load or analyse it. Run the generator at build time, or ship its output.` };
  }
}

/** llm-artifact-in-task: a Markdown fence line inside a Python file (outside any string) or a shell script without heredocs. */
export function* fencedCode(ctx: AuditContext): Generator<Report> {
  for (const f of ctx.task.files) {
    if (!/\.(py|sh)$/.test(f)) continue;
    const t = ctx.text(f);
    if (!t) continue;
    const re = /^```[\w+-]*[ \t]*$/gm;
    for (let m = re.exec(t); m; m = re.exec(t)) {
      const before = t.slice(0, m.index);
      if (f.endsWith('.py') && ((before.match(/"""/g)?.length ?? 0) % 2 === 1 || (before.match(/'''/g)?.length ?? 0) % 2 === 1)) continue;
      if (f.endsWith('.sh') && /<</.test(before)) continue;
      yield { file: f, range: ctx.range(f, m.index, m.index + m[0].length),
        message: `A Markdown code fence (${m[0]}) inside ${f}: the generator's reply was saved as the file, so it does not even parse.` };
      break;
    }
  }
}

export const placeholderSolutionRule: StaticRule = {
  id: 'placeholder-solution', class: 'invalidity', severity: 'warning',
  title: 'The reference solution only prints a line (a stub), so nothing shows the task solvable',
  *check(ctx) {
    const file = ctx.solutionScript;
    if (!file || !placeholderSolution(ctx)) return;
    const t = ctx.text(file) ?? '';
    const at = t.search(/^\s*(echo|printf|true|:|exit)\b/m);
    yield { file, ...(at >= 0 ? { range: ctx.range(file, at, t.indexOf('\n', at) < 0 ? t.length : t.indexOf('\n', at)) } : {}),
      message: `${file} only prints or exits: it solves nothing, so an oracle run proves nothing about the task (and passes only if the answer is already in place). Write the steps that produce the answer.` };
  },
};
