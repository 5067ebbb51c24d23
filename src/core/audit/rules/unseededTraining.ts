import { text } from '../../parse/python';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { imageLayout } from './imageLayout';
import { assertExpr, asserts, tests } from './pyTestFiles';

/** Code that trains: an optimiser step, a backward pass, a fit (names of metrics alone say nothing). */
const TRAINS = /\.backward\(\)|\boptimi[sz]er\.step\(|\.fit\(/;
/** Any seeding: the run is then repeatable (whether every source is seeded is more than a file shows). */
const SEEDS = /\b(manual_seed|set_seed|seed_everything|random_state|PYTHONHASHSEED|default_rng\(\s*\d|RandomState\(\s*\d)|\b(random|np\.random|numpy\.random|tf\.random|torch\.cuda)\.seed\w*\(|\bseed\s*=\s*\d/;
/** A quality metric bounded from below (or an error from above) by a literal. */
const METRIC = /(acc|accuracy|f1|auc|precision|recall|r2|score|iou|dice|bleu|map|ndcg|reward|return)\w*/i;
const ERROR = /(loss|error|err|mse|rmse|mae|perplexity|ppl)\w*/i;

/** Task files the verifier runs with Python (the entry script's `python3 x.py`), by where the image puts them. */
function scriptsRun(ctx: AuditContext): string[] {
  const out: string[] = [];
  const { files, workdir } = imageLayout(ctx);
  // The verifier starts where the final image's WORKDIR leaves it.
  const wd = (workdir ?? ctx.workdir()).replace(/\/+$/, '');
  for (const v of ctx.verifierScripts) {
    for (const cmd of ctx.shell(v)?.commands ?? []) {
      if (!/^python3?$/.test(cmd.name ?? '')) continue;
      const arg = cmd.args.find((a) => !a.value.startsWith('-'));
      if (!arg?.value.endsWith('.py') || cmd.args.some((a) => a.value === '-m')) continue;
      const abs = arg.value.startsWith('/') ? arg.value : `${wd}/${arg.value.replace(/^\.\//, '')}`;
      const src = files.get(abs)?.source ?? (ctx.fileSet.has(arg.value.replace(/^\.\//, '')) ? arg.value.replace(/^\.\//, '') : undefined);
      if (src) out.push(src);
    }
  }
  return out;
}

/**
 * Training (or sampling) runs with no seed anywhere in the code that trains, and a test then holds
 * the result to a fixed bar (`assert acc > 0.85`): the verdict is a draw from the run's spread, and a
 * correct solution near the bar fails on some runs. Seeded runs, and bars on a computed value that
 * is not trained, are left alone.
 */
export const unseededTrainingThreshold: StaticRule = {
  id: 'unseeded-training-threshold', class: 'brittleness', severity: 'warning',
  title: 'An unseeded training run is held to a fixed accuracy or loss bar',
  *check(ctx) {
    const trainers = [...scriptsRun(ctx), ...ctx.testPython].filter((f) => TRAINS.test(ctx.text(f) ?? ''));
    if (trainers.length === 0) return;
    // Seeded anywhere the run could be seeded (the trainer, the tests, the entry script, the solution).
    const seeded = [...trainers, ...ctx.testPython, ...ctx.verifierScripts, ctx.task.solution.file].some((f) => SEEDS.test(ctx.text(f) ?? ''));
    if (seeded) return;
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const a of asserts(fn)) {
          const e = assertExpr(a);
          if (e?.type !== 'comparison_operator') continue;
          const t = text(tf.tree, e).replace(/\s+/g, ' ');
          const m = /^([\w.[\]'"]+) (>|>=|<|<=) (-?\d*\.?\d+(?:e-?\d+)?)$/.exec(t);
          if (!m) continue;
          const [, lhs = '', op = ''] = m;
          const last = lhs.split('.').pop() ?? lhs;
          const bar = (op.startsWith('>') && METRIC.test(last) && !ERROR.test(last)) || (op.startsWith('<') && ERROR.test(last));
          if (!bar) continue;
          yield {
            file: tf.file, range: ctx.range(tf.file, a.start, a.end),
            message: `\`${t}\` holds the result of an unseeded training run (${trainers.join(', ')}) to a fixed bar: runs differ, so a correct solution close to the bar passes or fails by chance. Seed every source of randomness (torch/numpy/random, data shuffling), or leave a margin measured over several runs.`,
          };
        }
      }
    }
  },
};
