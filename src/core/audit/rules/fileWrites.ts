/**
 * Whether a script or program text writes a given file: one answer for the rules that ask "does the
 * solution (or a verifier's generator) make this file?", by the write forms seen in task code.
 */
import { escapeRegExp } from '../../parse/regex';

/**
 * `text` writes `target` (a path, or a name bound to it): a shell redirect or `tee` into it, a
 * copy/move whose destination it is, a download to it, Python's `open(…, "w")`, `Path(…).write_text`,
 * a pandas/numpy/json save to it, `shutil.copy(…, it)`.
 */
export function writesTo(text: string, target: string): boolean {
  const t = escapeRegExp(target);
  const q = `["']?`;
  return [
    new RegExp(`>>?\\s*${q}${t}(?![\\w.-])`),
    new RegExp(`\\btee\\b[^\\n]*${t}(?![\\w.-])`),
    new RegExp(`\\b(cp|mv|ln|install|rsync)\\b[^\\n]*\\s${q}${t}${q}\\s*(&&|;|$)`, 'm'),
    new RegExp(`(-o|-O|--output)\\s+${q}${t}(?![\\w.-])`),
    new RegExp(`open\\(\\s*${q}${t}${q}\\s*,\\s*["'][wax]`),
    new RegExp(`${t}${q}\\s*\\)\\s*\\.(write_text|write_bytes|touch|open\\(\\s*["'][wax])`),
    new RegExp(`\\.(to_csv|to_json|to_parquet|to_excel|savetxt|save|dump|write)\\([^)\\n]*${t}(?![\\w.-])`),
    new RegExp(`shutil\\.(copy\\w*|move)\\([^)\\n]*,\\s*${q}${t}(?![\\w.-])`),
  ].some((r) => r.test(text));
}

/** `p` is written in `text`, directly or through a name the text binds to it (`OUT = "/app/x.csv"`). */
export function writes(text: string, p: string): boolean {
  if (writesTo(text, p)) return true;
  const names = [...text.matchAll(new RegExp(`\\b([A-Za-z_]\\w*)\\s*=\\s*(?:Path\\(\\s*)?["']?${escapeRegExp(p)}(?![\\w.-])`, 'g'))].map((m) => m[1] ?? '');
  return names.some((n) => writesTo(text, n) || writesTo(text, `$${n}`) || writesTo(text, `\${${n}}`));
}
