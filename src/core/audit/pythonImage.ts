/**
 * Whether `pip install` into the image's system Python works. Distributions that ship Python as an
 * OS package mark it "externally managed" (PEP 668: an `EXTERNALLY-MANAGED` file beside the stdlib):
 * Debian 12 (bookworm) and later, Ubuntu 23.04 and later, Alpine 3.19 and later. There a plain
 * `pip install` fails with `error: externally-managed-environment`. The official `python:*` images
 * keep their interpreter in /usr/local with no marker, and a virtual environment on PATH is never
 * managed. What the Dockerfile says is all that is read (no registry, no image inspection).
 */
export type PipTarget =
  | { readonly kind: 'managed'; readonly image: string; readonly why: string }
  | { readonly kind: 'free'; readonly image: string | undefined; readonly why: string }
  | { readonly kind: 'unknown'; readonly image: string | undefined; readonly why: string };

const DEBIAN_MANAGED = new Set(['bookworm', 'trixie', 'forky', 'duke', 'sid', 'testing', 'unstable', 'stable', 'latest', 'experimental', 'rc-buggy', 'oldstable']);
const DEBIAN_FREE = new Set(['bullseye', 'buster', 'stretch', 'jessie', 'wheezy']);
const UBUNTU_MANAGED = new Set(['lunar', 'mantic', 'noble', 'oracular', 'plucky', 'questing', 'latest', 'rolling', 'devel']);
const UBUNTU_FREE = new Set(['jammy', 'focal', 'bionic', 'xenial', 'kinetic', 'impish', 'hirsute', 'groovy']);

/** `docker.io/library/debian:bookworm-slim` → `{ name: 'debian', tag: 'bookworm-slim' }`. */
function splitImage(ref: string): { name: string; tag: string } {
  const noDigest = ref.split('@')[0] ?? ref;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const tag = colon > slash ? noDigest.slice(colon + 1) : '';
  let name = (colon > slash ? noDigest.slice(0, colon) : noDigest).toLowerCase();
  name = name.replace(/^(docker\.io\/|index\.docker\.io\/|registry-1\.docker\.io\/)/, '').replace(/^library\//, '');
  return { name, tag: tag.toLowerCase() };
}

/** The first word of a tag (`bookworm-slim` → `bookworm`, `12.5-slim` → `12.5`). */
const tagHead = (tag: string): string => tag.split('-')[0] ?? tag;

function versionAtLeast(v: string, major: number, minor = 0): boolean | undefined {
  const m = /^(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2] ?? 0);
  return a > major || (a === major && b >= minor);
}

/** The base image alone: managed, free or unknown. */
export function pipTargetOfImage(ref: string): PipTarget {
  const { name, tag } = splitImage(ref);
  const head = tagHead(tag) || 'latest';
  const base = name.split('/').pop() ?? name;
  if (base === 'python' || base === 'pypy') return { kind: 'free', image: ref, why: `${ref} keeps its Python in /usr/local, outside the OS packages` };
  if (name === 'debian' || name === 'buildpack-deps') {
    const byVersion = versionAtLeast(head, 12);
    const managed = byVersion ?? (DEBIAN_MANAGED.has(head) ? true : DEBIAN_FREE.has(head) ? false : undefined);
    if (managed === true) return { kind: 'managed', image: ref, why: `Debian 12 and later (${ref}) manage python3 with apt and refuse a system-wide pip install` };
    if (managed === false) return { kind: 'free', image: ref, why: `${ref} predates Debian 12's externally managed Python` };
  }
  if (name === 'ubuntu') {
    const byVersion = versionAtLeast(head, 23, 4);
    const managed = byVersion ?? (UBUNTU_MANAGED.has(head) ? true : UBUNTU_FREE.has(head) ? false : undefined);
    if (managed === true) return { kind: 'managed', image: ref, why: `Ubuntu 23.04 and later (${ref}) manage python3 with apt and refuse a system-wide pip install` };
    if (managed === false) return { kind: 'free', image: ref, why: `${ref} predates Ubuntu 23.04's externally managed Python` };
  }
  if (name === 'alpine') {
    const managed = head === 'latest' || head === 'edge' ? true : versionAtLeast(head, 3, 19);
    if (managed === true) return { kind: 'managed', image: ref, why: `Alpine 3.19 and later (${ref}) manage python3 with apk and refuse a system-wide pip install` };
    if (managed === false) return { kind: 'free', image: ref, why: `${ref} predates Alpine 3.19's externally managed Python` };
  }
  return { kind: 'unknown', image: ref, why: `Taskwright does not know whether ${ref} manages its Python` };
}

/** `FROM [--platform=…] image [AS stage]` lines, in order (a FROM is one line in practice). */
export function fromLines(dockerfile: string): { image: string; stage?: string }[] {
  const out: { image: string; stage?: string }[] = [];
  for (const m of dockerfile.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    out.push({ image: m[1] ?? '', ...(m[2] ? { stage: m[2] } : {}) });
  }
  return out;
}

/** A virtual environment the image puts first on PATH (`ENV PATH=/opt/venv/bin:$PATH`, `ENV VIRTUAL_ENV`). */
const VENV_ON_PATH = /^\s*ENV\s+(?:.*\bVIRTUAL_ENV\b|.*\bPATH\s*[= ]\s*["']?[^\s"']*(venv|virtualenv|\.venv|conda|miniconda|mamba)[^\s"':]*\/bin)/im;
/** pip told once for the whole image that the system Python may be changed. */
const BREAK_ALLOWED = /^\s*ENV\s+.*\bPIP_BREAK_SYSTEM_PACKAGES\s*[= ]\s*["']?(1|true|yes|on)\b/im;

/** Where a `RUN pip install` appended to this Dockerfile lands: the final stage's base, a venv, or the setting. */
export function pipTargetOf(dockerfile: string): PipTarget {
  const froms = fromLines(dockerfile);
  const last = froms[froms.length - 1];
  if (!last) return { kind: 'unknown', image: undefined, why: 'the Dockerfile has no FROM' };
  // The final stage may build on an earlier one (`FROM base AS app` … `FROM app`): follow it down.
  let ref = last.image;
  for (let hops = 0; hops < froms.length; hops++) {
    const stage = froms.find((f) => f.stage !== undefined && f.stage.toLowerCase() === ref.toLowerCase());
    if (!stage) break;
    ref = stage.image;
  }
  if (VENV_ON_PATH.test(dockerfile)) return { kind: 'free', image: ref, why: 'the image puts a virtual environment first on PATH' };
  if (BREAK_ALLOWED.test(dockerfile)) return { kind: 'free', image: ref, why: 'the image sets PIP_BREAK_SYSTEM_PACKAGES' };
  if (ref.includes('$')) return { kind: 'unknown', image: ref, why: `the base image (${ref}) is chosen by a build argument` };
  return pipTargetOfImage(ref);
}

/**
 * The Dockerfile line that installs `specs` with pip on this target. Managed: `python3 -m pip …
 * --break-system-packages` (the flag pip ≥ 23.0.1 has, which every managed distribution ships).
 * Unknown: the same permission as `PIP_BREAK_SYSTEM_PACKAGES=1`, which an older pip ignores, so the
 * line works on either. Free: a plain `pip install`.
 */
export function pipInstallLine(target: PipTarget, specs: readonly string[]): string {
  const list = specs.join(' ');
  if (target.kind === 'managed') return `RUN python3 -m pip install --no-cache-dir --break-system-packages ${list}`;
  if (target.kind === 'unknown') return `RUN PIP_BREAK_SYSTEM_PACKAGES=1 pip install --no-cache-dir ${list}`;
  return `RUN pip install --no-cache-dir ${list}`;
}
