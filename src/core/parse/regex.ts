/** `s` as a literal inside a RegExp source: every character with a meaning there is escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
