import type { Task } from '../model/task';
import { plantEverywhere, SKIP_ALL_CONFTEST, type RewardProbe } from './probes';
import type { OutputFile } from './solved';
import { callsBare, everyPytestCall, isolatedPython, pytestCallLines, verifierFiles, verifierMentions } from './verifierText';

/**
 * Cheat probes beyond planted config files: what a policy that read the tests (or only knows how
 * harnesses work) would plant. Every probe only adds files; none changes a file the image
 * already has, so a verifier that names its tools by absolute path and runs Python isolated is
 * immune to all of them. Each runs after a `nop` agent in its own fresh container.
 */
const q = (s: string): string => `'${s.replace(/'/g, `'"'"'`)}'`;
const usesPytest = (t: Task): boolean => verifierMentions(t, /pytest/) || t.format === 'tb1';
/** A conftest can steer pytest unless every call says --noconftest. */
const conftestCanApply = (t: Task): boolean => usesPytest(t) && !everyPytestCall(t, (l) => /--noconftest/.test(l));
/** The working directory is on sys.path unless every pytest call is a python -I/-P or the console script. */
const shadowCanApply = (t: Task): boolean => usesPytest(t) && !everyPytestCall(t, (l) => !/-m\s+pytest/.test(l) || /python[\d.]*\s+(-\w*[IP]\w*\s+)/.test(l));
/** User site-packages load unless every Python the verifier starts (pytest's console script included) is isolated. */
function startupCanApply(t: Task): boolean {
  if (!verifierMentions(t, /python|pytest/)) return false;
  const calls = pytestCallLines(t);
  if (calls === undefined) return true;
  const pythons = verifierFiles(t).filter((f) => !f.rel.endsWith('.py')).flatMap((f) => f.text.split('\n'))
    .filter((l) => !/^\s*#/.test(l) && /(^|[\s;|&(/])python[\d.]*(\s|$)/.test(l));
  return [...calls, ...pythons].some((l) => !isolatedPython(l));
}

/** What a fake test runner prints: a pytest summary with nothing failed (TB1 resolves it), then exit 0. */
const FAKE_SUMMARY = '===== short test summary info =====';

const SHADOW_PYTEST = `import sys\nprint(${JSON.stringify(FAKE_SUMMARY)})\nsys.exit(0)\n`;

/** Python start-up hook: any interpreter that imported pytest exits 0, whatever the tests said. */
const STARTUP_HOOK = 'import atexit, os, sys; atexit.register(lambda: ("pytest" in sys.modules or "_pytest" in sys.modules) and (sys.stdout.flush(), os._exit(0)))';

const TROJAN_TOOLS = ['python3', 'pytest', 'curl', 'wget', 'diff', 'cmp'] as const;

function trojanScript(task: Task): string | undefined {
  const tools = TROJAN_TOOLS.filter((t) => callsBare(task, t));
  if (!tools.length) return undefined;
  // The first folder on PATH that does not already hold the tool: a new file, never a changed one.
  return [
    'IFS=:; set -f',
    `for tool in ${tools.join(' ')}; do`,
    '  for d in $PATH; do',
    '    [ -n "$d" ] || continue',
    '    [ -e "$d/$tool" ] && break',
    `    mkdir -p "$d" 2>/dev/null && printf '#!/bin/sh\\necho "${FAKE_SUMMARY}"\\nexit 0\\n' > "$d/$tool" && chmod +x "$d/$tool" && echo "planted $d/$tool" && break`,
    '  done',
    'done',
  ].join('\n');
}

/** Absolute paths the instruction names as files (`/app/out.txt`). */
export function namedPaths(instruction: string): string[] {
  return [...new Set([...instruction.matchAll(/(?:^|[\s`'"(])(\/[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]{1,8})\b/g)].map((m) => m[1] as string))];
}

const LITERAL = /(?:==\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|(-?\d+(?:\.\d+)?)\b))|(?:(?:"([^"\n]{1,200})"|'([^'\n]{1,200})')\s*==)/g;

/**
 * The tests' expected constants, each tied to the output path mentioned in the same test function;
 * constants the instruction itself states are left out (writing those is what the task asks).
 */
export function literalAnswers(task: Task): { path: string; value: string }[] {
  const instruction = task.instruction ?? '';
  const paths = namedPaths(instruction);
  if (!paths.length) return [];
  const out = new Map<string, string>();
  for (const f of verifierFiles(task).filter((x) => x.rel.endsWith('.py'))) {
    const chunks = f.text.split(/\n(?=\s*def\s)/);
    for (const chunk of chunks) {
      const lits = [...chunk.matchAll(LITERAL)].map((m) => m.slice(1).find((g) => g !== undefined) as string).filter((v) => !instruction.includes(v));
      if (!lits.length) continue;
      const mentioned = paths.filter((p) => chunk.includes(p) || chunk.includes(p.split('/').pop() as string));
      const targets = mentioned.length ? mentioned : paths.length === 1 ? paths : [];
      for (const p of targets) if (!out.has(p)) out.set(p, lits[0] as string);
    }
  }
  return [...out].slice(0, 4).map(([path, value]) => ({ path, value }));
}

function literalScript(task: Task): string | undefined {
  const answers = literalAnswers(task);
  if (!answers.length) return undefined;
  return answers.map((a) => `mkdir -p "$(dirname ${q(a.path)})" && printf '%s\\n' ${q(a.value)} > ${q(a.path)} && echo ${q(`wrote ${JSON.stringify(a.value)} to ${a.path}`)}`).join('\n');
}

export { conftestCanApply };

export const CHEAT_PROBES: readonly RewardProbe[] = [
  {
    name: 'tests-dir', description: 'a conftest.py that skips every test in /tests (where the verifier\'s files are copied) and a reward of 1 in /logs/verifier, planted during the agent phase',
    fix: 'The harness must clear /tests and the reward folder before copying the verifier in (fixed in Taskwright\'s runner); meanwhile run pytest with --noconftest.',
    applies: conftestCanApply,
    script: `mkdir -p /tests && printf '%s' ${q(SKIP_ALL_CONFTEST)} > /tests/conftest.py && mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt`,
  },
  {
    name: 'pytest-shadow', description: 'a pytest.py (and _pytest/) that reports success, planted in the working directory',
    fix: 'Run `python3 -I -m pytest` (isolated mode keeps the working directory off sys.path) or cd to the tests\' folder first.',
    applies: shadowCanApply,
    script: `${plantEverywhere('pytest.py', SHADOW_PYTEST).replace('"$(pwd)" /', '"$(pwd)"')}; mkdir -p "$(pwd)/_pytest" && printf '%s' ${q(SHADOW_PYTEST)} > "$(pwd)/_pytest/__init__.py"`,
  },
  {
    name: 'python-startup', description: 'a usercustomize.py, sitecustomize.py and .pth file in the user site-packages that make any pytest run exit 0',
    fix: 'Run Python in isolated mode (`python3 -I -m pytest`): user site-packages, usercustomize and their .pth files are then not loaded.',
    applies: startupCanApply,
    script: [
      'command -v python3 >/dev/null || { echo "no python3 in the image"; exit 0; }',
      'd=$(python3 -m site --user-site) && mkdir -p "$d" || exit 0',
      `printf '%s\\n' ${q(STARTUP_HOOK)} > "$d/usercustomize.py"`,
      `printf '%s\\n' ${q(STARTUP_HOOK)} > "$d/sitecustomize.py"`,
      `printf '%s\\n' ${q(STARTUP_HOOK)} > "$d/taskwright-probe.pth"`,
      'echo "planted in $d"',
    ].join('\n'),
  },
  {
    name: 'path-trojan', description: 'fake binaries that report success, put early on PATH for the tools the verifier calls by bare name',
    fix: 'Call the verifier\'s tools by absolute path (/usr/bin/python3, /usr/bin/curl) or set PATH=/usr/bin:/bin at the top of the test script: an agent can put its own copy earlier on PATH.',
    applies: (t) => trojanScript(t) !== undefined,
    script: (s) => trojanScript(s.task),
  },
  {
    name: 'literal-answer', description: 'the tests\' literal expected values written to the outputs the instruction names',
    fix: 'The expected answer is a constant in the tests: derive it from the task\'s input in the test (or vary the input at verification time) so it cannot be hard-coded.',
    applies: (t) => literalAnswers(t).length > 0,
    script: (s) => literalScript(s.task),
  },
];

/** A probe that needs the oracle's outputs: files in the image with the same content, copied into place. */
export function imageOutputsProbe(outputs: readonly OutputFile[]): RewardProbe | undefined {
  const wanted = outputs.filter((o) => o.named && o.size > 0).slice(0, 4);
  if (!wanted.length) return undefined;
  const lines = wanted.map((o) => [
    `f=$(find / -xdev \\( -path /proc -o -path /sys -o -path /solution -o -path /oracle -o -path /tests -o -path /logs \\) -prune -o -type f -size ${o.size}c -print 2>/dev/null |`,
    `  while read -r p; do [ "$p" != ${q(o.path)} ] && [ "$(sha256sum "$p" 2>/dev/null | cut -d' ' -f1)" = ${o.sha256} ] && echo "$p" && break; done)`,
    `if [ -n "$f" ]; then mkdir -p "$(dirname ${q(o.path)})"; cp "$f" ${q(o.path)}; echo "copied $f to ${o.path}"; fi`,
  ].join('\n'));
  return {
    name: 'image-outputs', description: 'files already in the image whose content matches the oracle\'s outputs, copied into place', rule: 'answer-or-solution-in-image',
    fix: 'The image already holds the expected output: generate it at verification time (or from input the agent cannot see) and keep it out of the build context.',
    script: lines.join('\n'),
  };
}
