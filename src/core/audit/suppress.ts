const IGNORE = /taskwright:\s*ignore\[([^\]]*)\]/g;

/**
 * Rule ids suppressed per 0-based line by `# taskwright: ignore[rule-a, rule-b]` comments: a comment
 * suppresses findings on its own line and on the line below. `ignore[*]` suppresses every rule.
 */
export function suppressions(text: string): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  if (!text.includes('taskwright:')) return out;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    IGNORE.lastIndex = 0;
    for (let m = IGNORE.exec(line); m; m = IGNORE.exec(line)) {
      const ids = (m[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      for (const target of [i, i + 1]) {
        const set = out.get(target) ?? new Set<string>();
        for (const id of ids) set.add(id);
        out.set(target, set);
      }
    }
  });
  return out;
}

export function isSuppressed(map: ReadonlyMap<number, ReadonlySet<string>>, line: number, rule: string): boolean {
  const set = map.get(line);
  return !!set && (set.has(rule) || set.has('*'));
}
