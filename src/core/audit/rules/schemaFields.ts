import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';

/** `experiment_result.q1[1].power`: a path into the agent's JSON answer, as scoring configs spell it. */
const KEY_PATH = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])+$/;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function parse(text: string | undefined): Json | undefined {
  if (text === undefined) return undefined;
  try { return JSON.parse(text) as Json; } catch { return undefined; }
}

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One level down a shape: an example object, or a JSON Schema (`properties`, `items`). */
function child(shape: Json | undefined, seg: string): Json | undefined {
  if (Array.isArray(shape)) return /^\[\d+\]$/.test(seg) ? shape[0] : undefined;
  if (!isObject(shape)) return undefined;
  if (/^\[\d+\]$/.test(seg)) return isObject(shape.items) ? shape.items : undefined;
  const props = shape.properties;
  if (isObject(props) && seg in props) return props[seg];
  return seg in shape ? shape[seg] : undefined;
}

/** The output shape the instruction hands the agent: a JSON file it names that the task ships. */
function statedShapes(ctx: AuditContext): { file: string; shape: Json }[] {
  const prose = [ctx.instruction(), ...(ctx.task.steps ?? []).map((s) => s.instruction ?? '')].join('\n');
  const testsDir = `${ctx.testsDir}/`;
  const out: { file: string; shape: Json }[] = [];
  for (const f of ctx.task.files) {
    if (!f.endsWith('.json') || f.startsWith(testsDir)) continue;
    const base = f.split('/').pop() ?? f;
    if (!prose.includes(base)) continue;
    const shape = parse(ctx.text(f));
    if (isObject(shape)) out.push({ file: f, shape });
  }
  return out;
}

/**
 * A scoring config of the tests names a field of the agent's JSON answer (`"path": "result.q1[1].recall"`)
 * that the output shape the instruction hands over never lists, at a level where the shape does list
 * its siblings: an answer that follows the stated shape exactly loses those points. Decided against the
 * stated shape itself, not by field names.
 */
export const scoredFieldNotInSchema: StaticRule = {
  id: 'scored-field-not-in-schema', class: 'misalignment', severity: 'warning',
  title: 'The tests score a field the stated output schema never lists',
  *check(ctx) {
    const shapes = statedShapes(ctx);
    if (shapes.length === 0) return;
    const testsDir = `${ctx.testsDir}/`;
    for (const file of ctx.task.files.filter((f) => f.startsWith(testsDir) && f.endsWith('.json'))) {
      const text = ctx.text(file);
      if (text === undefined) continue;
      for (const m of text.matchAll(/"([^"\\]+)"/g)) {
        const p = m[1] ?? '';
        if (!KEY_PATH.test(p)) continue;
        const segs = p.match(/[A-Za-z_]\w*|\[\d+\]/g) ?? [];
        for (const { file: schemaFile, shape } of shapes) {
          if (child(shape, segs[0] ?? '') === undefined) continue;
          let cur: Json | undefined = shape;
          let missing: string | undefined;
          for (const seg of segs) {
            const next = child(cur, seg);
            // Only where the shape spells this level out (an object with fields): a free-form value says nothing.
            if (next === undefined) { if (isObject(cur) || Array.isArray(cur)) missing = seg; break; }
            cur = next;
          }
          if (!missing || /^\[\d+\]$/.test(missing)) continue;
          const at = (m.index ?? 0) + 1;
          yield {
            file, range: ctx.range(file, at, at + p.length),
            message: `The tests score \`${p}\`, but ${schemaFile}, the output shape the instruction tells the agent to follow, has no field \`${missing}\` there: an answer that follows the stated shape loses this check. List the field in the shape (or stop scoring it).`,
          };
          break;
        }
      }
    }
  },
};
