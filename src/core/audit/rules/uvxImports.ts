/**
 * Tests run by `uvx pytest` import what uvx's environment does not hold. `uvx` (and `uv tool run`)
 * makes a fresh environment with pytest and its `--with` packages only, on an interpreter of its own:
 * neither the image's site-packages nor the project's dependencies are there. A test module that
 * imports flask or numpy then fails at collection, and every run, the reference solution's too,
 * scores 0.
 */
import { childByField, descendants, findAncestor, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import { text } from '../../parse/python';
import { PYTHON_STDLIB } from '../../parse/pythonStdlib';
import { effectiveWords } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { installOf, isPytestCommand } from './commands';
import { pytestRange, scripts } from './verifierShared';

/** Import names that differ from the distribution that provides them. */
const DIST_OF: Readonly<Record<string, string>> = {
  yaml: 'pyyaml', pil: 'pillow', sklearn: 'scikit-learn', skimage: 'scikit-image', cv2: 'opencv-python', bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil', dotenv: 'python-dotenv', jose: 'python-jose', jwt: 'pyjwt', docx: 'python-docx', pptx: 'python-pptx',
  serial: 'pyserial', crypto: 'pycryptodome', openssl: 'pyopenssl', attr: 'attrs', magic: 'python-magic', multipart: 'python-multipart',
  google: 'protobuf', grpc: 'grpcio', psycopg2: 'psycopg2-binary', mysqldb: 'mysqlclient', zmq: 'pyzmq', fitz: 'pymupdf', git: 'gitpython',
};

/**
 * What the packages uv installs bring along (their runtime dependencies), for the packages whose
 * trees are known here. A `--with` package outside this table may bring anything: then the rule
 * stays quiet.
 */
const BRINGS: Readonly<Record<string, readonly string[]>> = {
  pytest: ['pluggy', 'iniconfig', 'packaging', '_pytest', 'py', 'exceptiongroup', 'tomli'],
  requests: ['urllib3', 'idna', 'certifi', 'charset-normalizer'],
  httpx: ['httpcore', 'anyio', 'idna', 'certifi', 'sniffio', 'h11'],
  numpy: [], pyyaml: [], jsonschema: ['attrs', 'referencing', 'rpds', 'jsonschema-specifications'], toml: [], tomli: [],
  pandas: ['numpy', 'python-dateutil', 'pytz', 'tzdata', 'six'],
  scipy: ['numpy'], 'scikit-learn': ['numpy', 'scipy', 'joblib', 'threadpoolctl'],
  flask: ['werkzeug', 'jinja2', 'itsdangerous', 'click', 'markupsafe', 'blinker'],
  pillow: [], beautifulsoup4: ['soupsieve'], lxml: [], 'python-dateutil': ['six'], pydantic: ['pydantic-core', 'annotated-types', 'typing-extensions'],
};

const norm = (s: string): string => s.toLowerCase().replace(/[-_.]+/g, '-');

/** A `--with` requirement's distribution name (`pytest==8.4.1` → `pytest`, `pkg[extra]>=1` → `pkg`). */
const distOf = (spec: string): string => norm(spec.split(/[=<>!~[@;\s]/)[0] ?? spec);

/** Top-level modules the file imports where a missing one breaks it (not under `try … except ImportError`). */
function importsOf(tree: SyntaxTree): { module: string; node: SyntaxNode }[] {
  const out: { module: string; node: SyntaxNode }[] = [];
  for (const imp of descendants(tree.root, new Set(['import_statement', 'import_from_statement']))) {
    const guarded = findAncestor(imp, (p) => p.type === 'try_statement' && /except\s*(\(?[\w\s,.]*(ImportError|ModuleNotFoundError|Exception)|:)/.test(text(tree, p)));
    if (guarded) continue;
    const names = imp.type === 'import_from_statement'
      ? [childByField(imp, 'module_name')].filter((m): m is SyntaxNode => m !== undefined && m.type === 'dotted_name')
      : imp.children.filter((c) => c.type === 'dotted_name' || c.type === 'aliased_import').map((c) => (c.type === 'aliased_import' ? childByField(c, 'name') ?? c : c));
    for (const n of names) out.push({ module: text(tree, n).split('.')[0] ?? '', node: imp });
  }
  return out;
}

/**
 * Module names that are the task's own, not packages uv would install: the tests' helpers, anything the
 * task ships (reached through a sys.path entry), and files the instruction or the solution names.
 */
function localModules(ctx: AuditContext): Set<string> {
  const local = new Set(ctx.mountedTests.flatMap((m) => [m.rel.replace(/\.py$/, '').split('/')[0] ?? '', m.rel.split('/')[0] ?? '']));
  for (const f of ctx.task.files) for (const part of f.replace(/\.py$/, '').split('/')) local.add(part);
  const prose = `${ctx.instruction()}\n${ctx.text(ctx.task.solution.file) ?? ''}`;
  for (const m of prose.matchAll(/([A-Za-z_]\w*)(?:\.py\b|\/__init__\.py|\/)/g)) local.add(m[1] ?? '');
  return local;
}

export const testImportsOutsideEnv: StaticRule = {
  id: 'test-imports-outside-env', class: 'invalidity', severity: 'warning',
  title: '`uvx pytest` runs tests that import packages its fresh environment does not have',
  *check(ctx) {
    const mounted = ctx.mountedTests;
    // Made on first use: most tasks have no `uvx pytest` line at all.
    let local: Set<string> | undefined;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const w = effectiveWords(cmd);
        if (!(w[0] === 'uvx' || (w[0] === 'uv' && w[1] === 'tool' && w[2] === 'run')) || !isPytestCommand(cmd)) continue;
        // `if command -v uvx …; then uvx … else pytest … fi`: which branch runs depends on the image.
        if (cmd.conditional) continue;
        // A requirements file or a project given to uv: what the environment holds is not on the line.
        if (w.some((x) => /^--with-(requirements|editable)|^--from$|^--python-preference|^--system/.test(x))) continue;
        const dists = new Set((installOf(cmd)?.packages ?? []).map((p) => distOf(p.spec)));
        dists.add('pytest');
        // Every package must have a known tree (pytest plugins bring nothing but pytest's).
        if ([...dists].some((d) => !(d in BRINGS) && !d.startsWith('pytest-'))) continue;
        const have = new Set([...dists, ...[...dists].flatMap((d) => BRINGS[d] ?? [])].map(norm));
        const targets = w.filter((x) => /^\/tests\/.*\.py$|^\/tests\/?$/.test(x.split('::')[0] ?? ''));
        if (targets.length === 0) continue;
        const files = mounted.filter((m) => m.rel.endsWith('.py') && targets.some((t) => {
          const p = (t.split('::')[0] ?? '').replace(/^\/tests\/?/, '');
          return p === '' ? /(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(m.rel) : m.rel === p || m.rel === 'conftest.py';
        }));
        local ??= localModules(ctx);
        const missing = new Map<string, { file: string; node: SyntaxNode; tree: SyntaxTree }>();
        for (const f of files) {
          const tree = ctx.python(f.file);
          if (!tree) continue;
          for (const { module, node } of importsOf(tree)) {
            const m = module.toLowerCase();
            if (!m || PYTHON_STDLIB.has(module) || module === '__future__' || local.has(module) || m === 'pytest' || m === '_pytest') continue;
            const dist = norm(DIST_OF[m] ?? m);
            if (have.has(dist) || have.has(norm(m)) || missing.has(module)) continue;
            missing.set(module, { file: f.file, node, tree });
          }
        }
        const first = [...missing.values()][0];
        if (!first) continue;
        const names = [...missing.keys()];
        const shown = names.slice(0, 4).join(', ') + (names.length > 4 ? `, and ${names.length - 4} more` : '');
        yield {
          file, range: pytestRange(ctx, file, cmd),
          message: `\`uvx\` runs pytest in a fresh environment holding only ${[...dists].join(', ')}, but the tests import ${shown}: collection fails and every run, the reference solution's too, scores 0. Add \`--with <package>==<version>\` for each, or run the image's own pytest.`,
          related: [{ file: first.file, range: ctx.range(first.file, first.node.start, first.node.end), message: `imports ${names[0]}` }],
        };
      }
    }
  },
};
