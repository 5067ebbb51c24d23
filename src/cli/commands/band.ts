import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BAND_THRESHOLDS, DEFAULT_K, parseThresholds } from '../../core/band/classify';
import { computeBand } from '../../core/band/compute';
import { renderBandCsv, renderBandText } from '../../core/band/format';
import type { BandReport } from '../../core/band/types';
import { writeBandHtml } from '../../core/report/bandHtml';
import { defaultResultsDir } from '../../core/results/store';
import { boolOpt, choiceOpt, intOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';

const FORMATS = ['text', 'json', 'csv'] as const;

/**
 * `--html FILE` is the band panel's standalone export (src/core/report/bandHtml.ts, the webview area's):
 * it gets the finished report and writes the file. Replaceable for tests or another renderer.
 */
export let renderBandHtml: (report: BandReport, file: string) => Promise<void> = writeBandHtml;
export function setBandHtmlRenderer(fn: (report: BandReport, file: string) => Promise<void>): void {
  renderBandHtml = fn;
}

export const bandCommand: CliCommand = {
  name: 'band',
  summary: 'pass@k and the solvability band per task and model, from runs, Harbor jobs or TB1 runs',
  usage: [
    'taskwright band [RESULTS...] [--k 2] [--band LOW,HIGH] [--model M] [--checkpoint L] [--format text|json|csv] [--html FILE]',
    '',
    '  RESULTS          run folders (.taskwright/runs/<id>), a results folder or workspace, Harbor job',
    '                   folders (jobs/<job>) or TB1 run folders (runs/<id>); default .taskwright/runs',
    '  --k K            pass@K (default 2); tasks with fewer valid attempts are "insufficient"',
    '  --band LOW,HIGH  thresholds on the success rate (default 0,1: no success = too hard,',
    '                   every attempt succeeded = too easy)',
    '  --model M        only this model (or agent spec)',
    '  --checkpoint L   only this checkpoint label',
    '  --format F       text (default), json (versioned BandReport) or csv (one row per task)',
    '  --html FILE      write the band panel as a standalone HTML file',
    '',
    'Infra errors are never attempts: they are counted apart. Validate runs found among RESULTS mark',
    'their failing tasks as broken. Exit status: 0, or 2 on usage errors.',
  ].join('\n'),
  options: {
    k: { type: 'string' }, band: { type: 'string' }, model: { type: 'string' }, checkpoint: { type: 'string' },
    format: { type: 'string' }, html: { type: 'string' }, 'no-tasks': { type: 'boolean' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const k = intOpt(args, 'k', DEFAULT_K);
    const format = choiceOpt(args, 'format', FORMATS, 'text');
    let thresholds = DEFAULT_BAND_THRESHOLDS;
    const bandText = stringOpt(args, 'band');
    if (bandText !== undefined) {
      try {
        thresholds = parseThresholds(bandText);
      } catch (e) {
        throw new UsageError(e instanceof Error ? e.message : String(e));
      }
    }
    const paths = args.positionals.length ? args.positionals.map((p) => path.resolve(io.cwd, p)) : [defaultResultsDir(io.cwd)];
    args.positionals.forEach((p, i) => {
      if (!fs.existsSync(paths[i]!)) throw new UsageError(`no such file or folder: ${p}`);
    });
    const html = stringOpt(args, 'html');
    const htmlFile = html === undefined ? undefined : path.resolve(io.cwd, html);
    // Checked before the (possibly long) count, so a typo costs nothing.
    if (htmlFile !== undefined) {
      const dir = path.dirname(htmlFile);
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`--html ${html}: the folder ${path.dirname(html ?? '') || '.'} does not exist`);
      if (fs.existsSync(htmlFile) && fs.statSync(htmlFile).isDirectory()) throw new UsageError(`--html ${html}: is a folder; name the HTML file to write`);
    }
    const model = stringOpt(args, 'model');
    const checkpoint = stringOpt(args, 'checkpoint');
    const { report, warnings } = computeBand(paths, { k, thresholds, ...(model ? { model } : {}), ...(checkpoint ? { checkpoint } : {}) });
    for (const w of warnings) io.err(`taskwright band: ${w}`);
    if (htmlFile !== undefined) await renderBandHtml(report, htmlFile);
    if (format === 'json') io.out(JSON.stringify(report, null, 2));
    else if (format === 'csv') io.out(renderBandCsv(report));
    else io.out(renderBandText(report, { tasks: !boolOpt(args, 'no-tasks') }));
    return 0;
  },
};
