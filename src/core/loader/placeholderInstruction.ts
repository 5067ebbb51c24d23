/**
 * An instruction that describes no task: a scaffold's instruction left as generated. Task templates
 * ship an instruction that is only an HTML comment of guidance for the author, or that plus a line
 * asking to replace the file; an agent handed it has nothing to solve. Judged on the text the author
 * wrote (HTML comments removed) and only when that text is a few words long, so a real instruction
 * that happens to say "replace this file" is never taken for one.
 */

const COMMENT = /<!--[\s\S]*?(-->|$)/g;
/** Longest visible text (in words) still read as a placeholder. */
const MAX_WORDS = 12;
/** What a scaffold's placeholder line says: fill in / replace this file, or a bare TODO. */
const PLACEHOLDER = [
  /\b(replace|fill( in| out)?|write|put|add|insert|edit)\b.*\b(this (file|text|placeholder|template)|(your|the) (task('s)? )?(instructions?|prompt|description)( here)?)\b/i,
  /^\W*(todo|tbd|fixme|placeholder|lorem ipsum)\b/i,
  /^\W*(your |the )?(task )?(instructions?|prompt|description) (goes )?here\b/i,
];

/**
 * Why `text` is a scaffold's placeholder rather than an instruction (for the finding's message), or
 * undefined when it reads as a task. An empty text is not judged here: the loaders report it as empty.
 */
export function placeholderInstruction(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const visible = text.replace(COMMENT, ' ').replace(/\s+/g, ' ').trim();
  if (visible === '') return 'it holds only an HTML comment (guidance for the author), no task';
  if (visible.split(' ').length > MAX_WORDS) return undefined;
  return PLACEHOLDER.some((re) => re.test(visible)) ? `it holds only a template's placeholder ("${visible}"), no task` : undefined;
}
