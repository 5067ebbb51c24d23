import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type { FindingClass, Severity } from '../model/finding';

/** One question the reviewer answers per task: pass, fail or not applicable, with cited evidence. */
export interface Criterion {
  /** Short id; findings use the rule id `review-<id>`. */
  readonly id: string;
  readonly question: string;
  readonly class: FindingClass;
  readonly severity: Severity;
}

export interface Rubric {
  readonly name: string;
  readonly criteria: readonly Criterion[];
  /** The rubric's text as loaded (part of the review cache key). */
  readonly source: string;
}

/**
 * The default rubric (TOML, the same shape a user's file has). A user rubric replaces it, or with
 * `extends = "default"` adds to it and overrides criteria of the same id.
 */
export const DEFAULT_RUBRIC_TOML = `name = "taskwright default"

[[criteria]]
id = "requirement-untested"
question = "Is every requirement the instruction states (outputs, paths, formats, ordering, edge cases) checked by at least one test? Fail when a stated requirement is never tested."
class = "misalignment"
severity = "warning"

[[criteria]]
id = "test-unasked"
question = "Does every test check only what the instruction asks, or what the environment makes evident? Fail when a test checks something the instruction never asked for."
class = "misalignment"
severity = "warning"

[[criteria]]
id = "spec-ambiguous"
question = "Is the instruction unambiguous and free of contradictions, so one reading of it passes the tests? Fail on an ambiguity or a contradiction that changes the verdict."
class = "invalidity"
severity = "warning"

[[criteria]]
id = "answer-hardcodable"
question = "Can the expected answer be hard-coded, or read from the image, the instruction or the tests, without doing the task? Fail when it can."
class = "misalignment"
severity = "error"

[[criteria]]
id = "named-file-missing"
question = "Does every file the instruction names as an input exist in the task (or get created by the Dockerfile)? Fail when a named input is missing."
class = "invalidity"
severity = "error"

[[criteria]]
id = "fake-solution"
question = "Is the reference solution a real solution that derives the answer, not the answer printed or copied? Fail when it prints a memorised result."
class = "misalignment"
severity = "warning"

[[criteria]]
id = "test-dependency-missing"
question = "Are the tests' dependencies (pytest, libraries, tools) installed in the image at build time? Fail when a test needs something the image does not install."
class = "invalidity"
severity = "error"

[[criteria]]
id = "verifier-not-isolated"
question = "Is the verifier isolated from the agent (tests and expected outputs not in the image, reward only from the test run)? Fail when the agent can read or change what decides the reward."
class = "misalignment"
severity = "error"
`;

const CLASSES: readonly FindingClass[] = ['brittleness', 'misalignment', 'invalidity', 'infra'];
const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

export class RubricError extends Error {}

/** Parses a rubric's text (TOML or YAML by `file`'s extension); every problem is reported with the file. */
export function parseRubric(text: string, file = 'rubric.toml', base?: Rubric): Rubric {
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? parseYaml(text) : parseToml(text);
  } catch (e) {
    throw new RubricError(`${file}: not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'TOML'}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const o = (raw ?? {}) as { name?: unknown; extends?: unknown; criteria?: unknown };
  if (!Array.isArray(o.criteria)) throw new RubricError(`${file}: needs a list of criteria ([[criteria]] with id, question, class, severity)`);
  const problems: string[] = [];
  const mine: Criterion[] = [];
  o.criteria.forEach((c: unknown, i) => {
    const x = (c ?? {}) as Record<string, unknown>;
    const id = typeof x.id === 'string' ? x.id : '';
    if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) problems.push(`criteria[${i}].id must be lower-case words joined by dashes`);
    if (typeof x.question !== 'string' || !x.question.trim()) problems.push(`criteria[${i}].question is required`);
    const cls = (x.class ?? 'misalignment') as FindingClass;
    const sev = (x.severity ?? 'warning') as Severity;
    if (!CLASSES.includes(cls)) problems.push(`criteria[${i}].class must be one of ${CLASSES.join(', ')}`);
    if (!SEVERITIES.includes(sev)) problems.push(`criteria[${i}].severity must be one of ${SEVERITIES.join(', ')}`);
    mine.push({ id, question: String(x.question ?? ''), class: cls, severity: sev });
  });
  if (problems.length) throw new RubricError(`${file}: ${problems.join('; ')}`);
  const parent = o.extends === 'default' ? (base ?? defaultRubric()) : undefined;
  const merged = parent ? [...parent.criteria.filter((c) => !mine.some((m) => m.id === c.id)), ...mine] : mine;
  return { name: typeof o.name === 'string' ? o.name : path.basename(file), criteria: merged, source: parent ? `${parent.source}\n${text}` : text };
}

export function defaultRubric(): Rubric {
  return parseRubric(DEFAULT_RUBRIC_TOML, 'default.toml');
}

export function loadRubric(file?: string): Rubric {
  if (!file) return defaultRubric();
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) {
    throw new RubricError(`cannot read rubric ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseRubric(text, file);
}
