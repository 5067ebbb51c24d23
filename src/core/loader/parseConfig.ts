import { parse as parseToml, TomlError } from 'smol-toml';
import { LineIndex } from '../model/positions';
import { ConfigReader } from './configReader';
import type { TaskFiles } from './files';
import type { ProblemSink } from './problems';
import { isRecord } from './sourceMap';
import { scanTomlPositions } from './tomlScanner';
import { parseYamlWithSources } from './yamlSource';

/**
 * Reads and parses one config file (YAML or TOML) into a checked reader. Syntax errors become
 * `config-parse-error` at the parser's position; the rest of the document is still read as far as
 * the parser can recover, so one typo does not hide every other field.
 */
export async function readConfig(files: TaskFiles, file: string, problems: ProblemSink): Promise<{ reader: ConfigReader; text: string } | undefined> {
  const got = await files.read(file);
  if (got === undefined) return undefined;
  if ('tooLarge' in got) {
    problems.add('config-parse-error', file, undefined, `${file} is ${got.tooLarge} bytes; a task config this large is not read`);
    const empty = new ConfigReader(file, {}, new Map(), problems);
    return { reader: empty, text: '' };
  }
  const text = got.text;
  const reader = file.endsWith('.toml') ? parseTomlConfig(file, text, problems) : parseYamlConfig(file, text, problems);
  return { reader, text };
}

export function parseYamlConfig(file: string, text: string, problems: ProblemSink): ConfigReader {
  const parsed = parseYamlWithSources(text);
  // The first error is the real one; later ones are mostly its echo.
  const first = parsed.errors[0];
  if (first) problems.add('config-parse-error', file, first.range, `${file} is not valid YAML: ${first.message}`);
  return new ConfigReader(file, parsed.data, parsed.sources, problems);
}

const MAX_TOML_RECOVERIES = 20;

export function parseTomlConfig(file: string, text: string, problems: ProblemSink): ConfigReader {
  const lines = new LineIndex(text);
  const sources = scanTomlPositions(text);
  let attempt = text;
  let data: unknown = {};
  for (let n = 0; n <= MAX_TOML_RECOVERIES; n++) {
    try {
      data = parseToml(attempt);
      break;
    } catch (e) {
      const line = e instanceof TomlError ? Math.max(0, e.line - 1) : 0;
      const column = e instanceof TomlError ? Math.max(0, e.column - 1) : 0;
      if (n === 0) {
        const lineEnd = lines.lineRange(line).end;
        const start = { line, character: Math.min(column, lineEnd.line === line ? lineEnd.character : column) };
        const end = lineEnd.line === line && lineEnd.character > start.character ? lineEnd : start;
        // A string running into the end of its line is the usual cause; smol-toml calls it a control character.
        const atLineEnd = lineEnd.line === line && start.character >= lineEnd.character - (text[lines.offsetAt(lineEnd) - 1] === '\r' ? 1 : 0);
        const hint = atLineEnd && /control character/.test(tomlMessage(e)) ? ' (is a closing quote missing?)' : '';
        problems.add('config-parse-error', file, { start, end }, `${file} is not valid TOML: ${tomlMessage(e)}${hint}`);
      }
      // Recover: blank the offending line (keeping every other position) and parse again.
      const next = blankLine(attempt, line);
      if (next === attempt) break;
      attempt = next;
      data = {};
    }
  }
  return new ConfigReader(file, isRecord(data) ? data : {}, sources, problems);
}

function tomlMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return (m.split('\n')[0] ?? m).replace(/^Invalid TOML document: /, '');
}

function blankLine(text: string, line: number): string {
  const idx = new LineIndex(text);
  if (line >= idx.lineCount()) return text;
  const r = idx.lineRange(line);
  const a = idx.offsetAt(r.start);
  const b = idx.offsetAt(r.end);
  if (a === b) return text;
  return text.slice(0, a) + ' '.repeat(b - a) + text.slice(b);
}
