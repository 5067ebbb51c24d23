/**
 * Third-party source a task carries as it is: an installed-packages folder, or a copy of a whole
 * library (a "pristine" checkout the grader diffs against, the host project the agent edits). Its
 * code is not the task's harness: a rule that reads its tests as the verifier's, or its scripts as
 * the task's, reports on someone else's project (and a copy of scipy is thousands of files).
 */

/** Folders that hold installed or vendored packages by convention. */
const VENDOR_FOLDER = /^(site-packages|dist-packages|node_modules|vendor|vendored|_vendor|third[_-]party|\.venv|venv)$/;
/** Installed-package metadata: the folder holding it is an install target (site-packages by another name). */
const PACKAGE_METADATA = /\.(dist-info|egg-info)$/;
/** What a project checkout holds at its root: a build manifest, a licence. */
const MANIFEST = /^(pyproject\.toml|setup\.py|setup\.cfg|package\.json|Cargo\.toml|go\.mod|pom\.xml|build\.gradle(\.kts)?|CMakeLists\.txt|meson\.build|DESCRIPTION|Project\.toml)$/;
const LICENCE = /^(LICEN[CS]E|COPYING)(\.\w+)?$/;
/** Source files under a folder with both a manifest and a licence (a published project, not a task's fixture). */
const PUBLISHED_MIN_SOURCES = 10;
/** Source files, counted to tell a library checkout from a task's small app. */
const SOURCE_FILE = /\.(py|pyx|sh|js|mjs|ts|c|h|cc|cpp|hpp|f|f90|F90|go|rs|java|kt|rb|jl|R|r|m|pl|lua|scala)$/;
/** A library's own test suite folder inside its package. */
const SUITE_FOLDER = /^(tests?|testing)$/;
/**
 * Source files a package (or a project checkout) must hold before it counts as a library copy: a
 * task's small helper package, or the small app the agent edits, stays the task's own.
 */
const LIBRARY_MIN_PY = 40;

/**
 * The folders (relative, no trailing slash) whose files are vendored third-party source, outermost
 * only. `roots` are folders never taken as vendored themselves (the tests folder, the build context):
 * a task's tests/ being a package does not make the task's tests someone else's.
 */
export function vendoredFolders(files: readonly string[], roots: readonly string[] = []): string[] {
  const found = new Set<string>();
  const packages = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      const seg = parts[i] as string;
      if (VENDOR_FOLDER.test(seg)) { found.add(parts.slice(0, i + 1).join('/')); break; }
      if (PACKAGE_METADATA.test(seg) && i > 0) { found.add(parts.slice(0, i).join('/')); break; }
    }
    if (parts[parts.length - 1] === '__init__.py' && parts.length > 1) packages.add(parts.slice(0, -1).join('/'));
  }
  // A top-level package (its parent is no package) holding many modules and its own test suite.
  const pyCount = new Map<string, number>();
  const hasSuite = new Set<string>();
  const topOf = (dir: string): string | undefined => {
    let top: string | undefined;
    for (let d = dir; packages.has(d); d = d.slice(0, Math.max(0, d.lastIndexOf('/')))) {
      top = d;
      if (!d.includes('/')) break;
    }
    return top;
  };
  for (const f of files) {
    if (!f.endsWith('.py')) continue;
    const dir = f.slice(0, Math.max(0, f.lastIndexOf('/')));
    const top = topOf(dir);
    if (top === undefined || roots.includes(top)) continue;
    pyCount.set(top, (pyCount.get(top) ?? 0) + 1);
    const inner = dir.slice(top.length).split('/');
    if (inner.some((s) => SUITE_FOLDER.test(s))) hasSuite.add(top);
  }
  for (const [top, n] of pyCount) if (n >= LIBRARY_MIN_PY && hasSuite.has(top)) found.add(top);
  // A project checkout below a root: a manifest or licence at its top and many source files under it.
  const projects = new Map<string, { manifest: boolean; licence: boolean }>();
  for (const f of files) {
    const i = f.lastIndexOf('/');
    if (i <= 0) continue;
    const name = f.slice(i + 1);
    const manifest = MANIFEST.test(name);
    if (!manifest && !LICENCE.test(name)) continue;
    const p = projects.get(f.slice(0, i)) ?? { manifest: false, licence: false };
    projects.set(f.slice(0, i), { manifest: p.manifest || manifest, licence: p.licence || !manifest });
  }
  if (projects.size > 0) {
    const sources = new Map<string, number>();
    for (const f of files) {
      if (!SOURCE_FILE.test(f)) continue;
      for (let i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) {
        const d = f.slice(0, i);
        if (projects.has(d)) sources.set(d, (sources.get(d) ?? 0) + 1);
      }
    }
    for (const [d, n] of sources) {
      const p = projects.get(d);
      if (n >= LIBRARY_MIN_PY || (p?.manifest && p.licence && n >= PUBLISHED_MIN_SOURCES)) found.add(d);
    }
  }
  // Outermost only, and never a root itself.
  const sorted = [...found].filter((d) => d !== '' && !roots.includes(d)).sort();
  return sorted.filter((d, i) => !sorted.slice(0, i).some((o) => d.startsWith(`${o}/`)));
}

/** Whether `file` lies inside one of `folders`. */
export function inFolders(file: string, folders: readonly string[]): boolean {
  return folders.some((d) => file.startsWith(`${d}/`));
}
