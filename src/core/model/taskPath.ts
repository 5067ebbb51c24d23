/**
 * What makes a path proposed for writing inside a task folder (by a model generating a task, or
 * fixing one) unsafe on its face, before any file is looked at: one list for every writer, so a
 * hole closed for one is closed for all. Where links lead is a question of the disk, asked by the
 * writer that has the folder (`fix/changes.ts`); the layout a format allows, by generation.
 */
export function relativePathProblem(p: string): string | undefined {
  if (!p) return 'empty path';
  if (p.includes('\0')) return `'${p}' contains a NUL byte`;
  if (p.includes('\\')) return `'${p}' uses a backslash; use POSIX separators`;
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return `'${p}' is absolute; paths are relative to the task folder`;
  const segments = p.split('/');
  if (segments.includes('..')) return `'${p}' leaves the task folder`;
  if (segments.some((s) => s === '' || s === '.')) return `'${p}' has an empty or '.' segment`;
  const own = segments.find((s) => s === '.git' || s === '.taskwright');
  if (own) return `'${p}' writes into ${own}, which is not part of the task`;
  return undefined;
}
