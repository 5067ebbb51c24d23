import fsSync from 'node:fs';
import path from 'node:path';

/** Folders never listed as task files: VCS data, dependencies, Taskwright's own state. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.taskwright']);

/**
 * Bounds that keep a pathological folder (a checked-in dataset, a venv) from stalling the loader. The
 * file count is the real bound; the depth only stops runaway nesting (Java and Android source trees
 * are routinely ten folders deep, and rules that miss a listed file report false errors).
 */
export const FILE_LIMITS = { maxDepth: 32, maxFiles: 5000, maxReadBytes: 4 * 1024 * 1024 } as const;

/** Reads task files, preferring unsaved editor text (the overlay) over disk. */
export class TaskFiles {
  private readonly overlay: ReadonlyMap<string, string>;

  constructor(readonly dir: string, overlay?: ReadonlyMap<string, string>) {
    const normalized = new Map<string, string>();
    for (const [p, text] of overlay ?? []) normalized.set(path.resolve(p), text);
    this.overlay = normalized;
  }

  abs(rel: string): string {
    return path.join(this.dir, ...rel.split('/'));
  }

  /** File text, or undefined when it does not exist, is not a file or cannot be read. */
  // Reads and stats are synchronous, as list() is: task files are small and each awaited call cost
  // a thread-pool round trip (measured, see list()); the async signature stays for callers.
  async read(rel: string): Promise<{ text: string } | { tooLarge: number } | undefined> {
    const abs = this.abs(rel);
    const o = this.overlay.get(abs);
    if (o !== undefined) return { text: withoutBom(o) };
    try {
      const st = fsSync.statSync(abs);
      if (!st.isFile()) return undefined;
      if (st.size > FILE_LIMITS.maxReadBytes) return { tooLarge: st.size };
      return { text: withoutBom(fsSync.readFileSync(abs, 'utf8')) };
    } catch {
      return undefined;
    }
  }

  async isFile(rel: string): Promise<boolean> {
    return this.isFileSync(rel);
  }

  isFileSync(rel: string): boolean {
    if (this.overlay.has(this.abs(rel))) return true;
    try {
      return fsSync.statSync(this.abs(rel)).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Whether a file is in the listing, or on disk when the listing stopped at its bound: a file the
   * listing did not reach is not a missing file.
   */
  listed(fileList: readonly string[], rel: string): boolean {
    return fileList.includes(rel) || (fileList.length >= FILE_LIMITS.maxFiles && this.isFileSync(rel));
  }

  async isDir(rel: string): Promise<boolean> {
    try {
      return fsSync.statSync(this.abs(rel)).isDirectory();
    } catch {
      return false;
    }
  }

  /**
   * Every file of the task folder, relative with POSIX separators, sorted. Symlinked folders are not
   * followed (they may loop or leave the task); symlinks themselves are listed like files.
   */
  list(): Promise<string[]> {
    return Promise.resolve(this.listSync());
  }

  /**
   * As list(). Synchronous on purpose: a task folder holds a few dozen folders, and each awaited
   * readdir is a thread-pool round trip plus promise work that cost more CPU than the system call
   * (profile of the whole-corpus audit, bench/RESULTS.md "Audit at scale"); the file count bounds it.
   */
  listSync(): string[] {
    const out = new Set<string>();
    // Breadth first: when the file count bound cuts a folder short, it cuts the deepest files (a
    // checked-in dataset under environment/), never tests/test.sh or solution/solve.sh beside it.
    let level: string[] = [''];
    for (let depth = 0; level.length > 0 && depth <= FILE_LIMITS.maxDepth && out.size < FILE_LIMITS.maxFiles; depth++) {
      const next: string[] = [];
      for (const rel of level) {
        let entries;
        try {
          entries = fsSync.readdirSync(rel ? this.abs(rel) : this.dir, { withFileTypes: true });
        } catch {
          continue;
        }
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const e of entries) {
          const child = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) {
            if (!SKIPPED_FOLDERS.has(e.name)) next.push(child);
          } else if (out.size < FILE_LIMITS.maxFiles) {
            out.add(child);
          }
        }
      }
      level = next;
    }
    for (const abs of this.overlay.keys()) {
      const rel = path.relative(this.dir, abs);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) out.add(rel.split(path.sep).join('/'));
    }
    return [...out].sort();
  }
}

/** Editors drop a byte-order mark from the document, so positions are counted without it. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
