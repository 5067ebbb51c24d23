/** `s` as a literal inside a RegExp source: every character with a meaning there is escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `word` standing alone: not inside a longer identifier (`top_path` but not `top_paths`). */
export function standaloneWord(word: string): RegExp {
  return new RegExp(`(^|[^\\w])${escapeRegExp(word)}([^\\w]|$)`);
}
