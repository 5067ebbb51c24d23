import type { TaskFormat } from '../model/task';
import { relativePathProblem } from '../model/taskPath';
import type { GeneratedFile, TaskDraft } from './types';

/** Files every generated task of a format must carry (the format's contract). */
export const REQUIRED_FILES: Readonly<Record<TaskFormat, readonly string[]>> = {
  harbor: ['task.toml', 'instruction.md', 'environment/Dockerfile', 'solution/solve.sh', 'tests/test.sh', 'tests/test_outputs.py'],
  tb1: ['task.yaml', 'Dockerfile', 'run-tests.sh', 'solution.sh', 'tests/test_outputs.py'],
};

/**
 * Where a generated file may live. Harbor keeps everything in its four folders; TB1's build context
 * is the task folder itself, so data files may sit at the top or in data folders.
 */
const ALLOWED: Readonly<Record<TaskFormat, (p: string) => boolean>> = {
  harbor: (p) => ['task.toml', 'instruction.md'].includes(p) || /^(environment|solution|tests)\/./.test(p),
  tb1: (p) => !/^(environment|solution)\//.test(p) && p !== 'task.toml' && p !== 'instruction.md',
};

const MAX_FILES = 40;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 1024 * 1024;
export const TASK_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** Why a model-given path cannot be written, or undefined when it is safe and in the format's layout. */
export function pathProblem(p: string, format: TaskFormat): string | undefined {
  const lexical = relativePathProblem(p);
  if (lexical) return lexical;
  if (p === 'REJECTED.md') return `'${p}' is reserved for the generator's own report`;
  if (!ALLOWED[format](p)) return `'${p}' is outside the ${format} layout (${format === 'harbor' ? 'task.toml, instruction.md, environment/, solution/, tests/' : 'task.yaml, Dockerfile, run-tests.sh, solution.sh, tests/ and data files'})`;
  return undefined;
}

/**
 * Checks the tool input against the schema by hand (the model may ignore it): every problem, so the
 * model can repair them all at once. Returns the draft when there are none.
 */
export function parseDraft(input: unknown, format: TaskFormat): { draft?: TaskDraft; problems: string[] } {
  const problems: string[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problems: ['the submit_task input is not an object'] };
  const o = input as Record<string, unknown>;
  const id = typeof o.id === 'string' ? o.id.trim() : '';
  if (!TASK_ID_PATTERN.test(id)) problems.push(`id '${String(o.id)}' must match ${TASK_ID_PATTERN.source} (lower-case letters, digits, dashes)`);
  const summary = typeof o.summary === 'string' ? o.summary : '';
  if (!Array.isArray(o.files)) return { problems: [...problems, 'files must be a list of {path, content}'] };
  if (o.files.length > MAX_FILES) problems.push(`${o.files.length} files; at most ${MAX_FILES}`);
  const files: GeneratedFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  o.files.forEach((f: unknown, i) => {
    if (typeof f !== 'object' || f === null) { problems.push(`files[${i}] is not an object`); return; }
    const { path: p, content } = f as Record<string, unknown>;
    if (typeof p !== 'string' || typeof content !== 'string') { problems.push(`files[${i}] needs a string path and a string content`); return; }
    const bad = pathProblem(p, format);
    if (bad) { problems.push(bad); return; }
    if (seen.has(p)) { problems.push(`'${p}' is given twice`); return; }
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > MAX_FILE_BYTES) problems.push(`'${p}' is ${bytes} bytes; at most ${MAX_FILE_BYTES}`);
    total += bytes;
    seen.add(p);
    files.push({ path: p, content });
  });
  if (total > MAX_TOTAL_BYTES) problems.push(`the files total ${total} bytes; at most ${MAX_TOTAL_BYTES}`);
  for (const r of REQUIRED_FILES[format]) if (!seen.has(r)) problems.push(`required file '${r}' is missing`);
  // A file and a folder of the same name cannot both exist.
  for (const p of seen) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) if (seen.has(parts.slice(0, i).join('/'))) problems.push(`'${parts.slice(0, i).join('/')}' is both a file and a folder`);
  }
  if (problems.length) return { problems };
  return { draft: { id, summary, files: files.sort((a, b) => a.path.localeCompare(b.path)) }, problems };
}

/** The `submit_task` tool: the task's files as structured output, never free text. */
export function submitTool(format: TaskFormat): { name: string; description: string; input_schema: Record<string, unknown> } {
  return {
    name: 'submit_task',
    description: `Submit one complete ${format === 'harbor' ? 'Harbor (task.toml)' : 'Terminal-Bench 1 (task.yaml)'} task: every file, with its path relative to the task folder. Required: ${REQUIRED_FILES[format].join(', ')}.`,
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'summary', 'files'],
      properties: {
        id: { type: 'string', pattern: TASK_ID_PATTERN.source, description: 'Task id and folder name: lower-case words joined by dashes.' },
        summary: { type: 'string', description: 'One sentence: what the agent must do and how the tests check it.' },
        files: {
          type: 'array',
          minItems: REQUIRED_FILES[format].length,
          maxItems: MAX_FILES,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'content'],
            properties: {
              path: { type: 'string', description: 'Relative POSIX path inside the task folder, e.g. tests/test_outputs.py.' },
              content: { type: 'string', description: 'The whole file, UTF-8.' },
            },
          },
        },
      },
    },
  };
}
