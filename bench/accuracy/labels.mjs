// Reads bench/accuracy/labels/*.json (the shared format of ACCURACY-LABELS.md) and joins them with
// the audit's findings. A bad label file is an error naming the file and the entry, never skipped.
import fs from 'node:fs';
import path from 'node:path';
import { findingKey, fingerprint } from './lib.mjs';

const CLASSES = new Set(['brittleness', 'misalignment', 'invalidity', 'infra']);

function fail(file, where, msg) { throw new Error(`${file}: ${where}: ${msg}`); }

function need(file, where, o, key, type, nullable = false) {
  const v = o[key];
  if (v === null && nullable) return;
  if (typeof v !== type) fail(file, where, `"${key}" must be a ${type}${nullable ? ' or null' : ''}`);
}

/** All label files of `dir`, validated: { findings, defects, clean, files }. Each entry keeps its source file. */
export function loadLabels(dir) {
  const out = { findings: [], defects: [], clean: [], files: [] };
  if (!fs.existsSync(dir)) return out;
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = path.join(dir, name);
    let data;
    try { data = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { throw new Error(`${file}: not JSON: ${e.message}`); }
    if (data.version !== 1) fail(file, 'top', '"version" must be 1');
    out.files.push(name);
    (data.findings ?? []).forEach((l, i) => {
      const w = `findings[${i}]`;
      for (const k of ['corpus', 'task', 'rule', 'why']) need(file, w, l, k, 'string');
      need(file, w, l, 'file', 'string', true);
      need(file, w, l, 'line', 'number', true);
      need(file, w, l, 'fp', 'string', true);
      if (l.verdict !== 'true' && l.verdict !== 'false') fail(file, w, '"verdict" must be "true" or "false"');
      out.findings.push({ ...l, source: name });
    });
    (data.defects ?? []).forEach((l, i) => {
      const w = `defects[${i}]`;
      for (const k of ['corpus', 'task', 'why']) need(file, w, l, k, 'string');
      need(file, w, l, 'file', 'string', true);
      need(file, w, l, 'line', 'number', true);
      need(file, w, l, 'rule', 'string', true);
      if (!CLASSES.has(l.class)) fail(file, w, `"class" must be one of ${[...CLASSES].join(', ')}`);
      out.defects.push({ ...l, source: name });
    });
    (data.clean ?? []).forEach((l, i) => {
      const w = `clean[${i}]`;
      for (const k of ['corpus', 'task', 'why']) need(file, w, l, k, 'string');
      out.clean.push({ ...l, source: name });
    });
  }
  return out;
}

/**
 * Joins finding labels with the current findings. Returns the verdict per finding key (labels whose
 * fingerprint still matches), the stale labels (the line moved or changed) and the gone ones (no
 * current finding has that key: the rule no longer reports it), and conflicting verdicts.
 */
export function joinFindingLabels(labels, findingsByKey, fpOf) {
  const verdicts = new Map();
  const stale = [];
  const gone = [];
  const conflicts = [];
  for (const l of labels) {
    const key = findingKey(l);
    const f = findingsByKey.get(key);
    if (!f) { gone.push(l); continue; }
    if (l.fp && l.line != null && fpOf(f) !== l.fp) { stale.push(l); continue; }
    const prev = verdicts.get(key);
    if (prev && prev.verdict !== l.verdict) conflicts.push([prev, l]);
    if (!prev) verdicts.set(key, l);
  }
  return { verdicts, stale, gone, conflicts };
}

/**
 * Does finding `f` find defect `d`: same task and file, right class, at the line (±1) or file-level.
 * With `logical` (file location → the first line of its logical line), two lines of one command
 * continued with `\` (`uvx \` … `pytest /tests`) are the same place: a reader may label the
 * command's first line, a rule the line that runs pytest.
 */
export function finds(f, d, logical) {
  if (f.corpus !== d.corpus || f.task !== d.task || f.class !== d.class) return false;
  if (d.file == null) return true; // a task-level defect: any finding of its class in the task
  if ((f.file ?? null) !== d.file) return false;
  if (d.line == null) return true;
  // A finding on the whole file (no line) points where a reader points with "line 1".
  if (f.line == null) return d.line <= 1;
  if (Math.abs(f.line - d.line) <= 1) return true;
  return logical !== undefined && logical(f, f.line) === logical(d, d.line);
}

export { fingerprint };
