import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BandReport } from '../band/types';
import { toWire, type HostToWebview } from '../protocol/bandPanel';

export interface PanelAssets {
  /** The webview bundle (dist/webview.js). */
  readonly script: string;
  /** The panel's stylesheet (media/band-panel.css). */
  readonly css: string;
}

export interface BandHtmlOptions {
  readonly assets: PanelAssets;
  /** Where the results came from, shown in the header. */
  readonly source?: string;
  readonly title?: string;
}

/**
 * The band panel as one self-contained HTML file: the webview bundle, its CSS and the report inline,
 * nothing fetched from the network (CSP `default-src 'none'`, scripts and styles by nonce only), so
 * it opens from disk, from an artifact store or as a mail attachment and looks as in the editor.
 */
export function renderBandHtml(report: BandReport, opts: BandHtmlOptions): string {
  const nonce = randomBytes(18).toString('base64');
  const init: HostToWebview = { type: 'init', data: toWire({ report, source: opts.source ?? 'band report', live: false }) };
  const title = opts.title ?? `Solvability band — ${opts.source ?? 'report'}`;
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data: blob:;`;
  return `<!DOCTYPE html>
<html lang="en" class="static">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${opts.assets.css.replace(/<\/style/gi, '<\\/style')}</style>
</head>
<body>
<div id="app"></div>
<script type="application/json" id="band-data">${jsonForScript(init)}</script>
<script nonce="${nonce}">${inlineScript(opts.assets.script)}</script>
</body>
</html>
`;
}

/** JSON that cannot end its <script> element early: `<` is written as its escape, valid in any JSON string. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A script body that cannot close its element or open an HTML comment. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/**
 * Finds the shipped bundle and stylesheet: next to dist/cli.js in the package, or from the source tree
 * (out/…) in tests. Throws naming what is missing and the command that makes it.
 */
export function loadPanelAssets(from: string = __dirname): PanelAssets {
  let dir = path.resolve(from);
  for (;;) {
    const script = path.join(dir, 'dist', 'webview.js');
    const css = path.join(dir, 'media', 'band-panel.css');
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(css)) {
      if (!fs.existsSync(script)) throw new Error(`the band panel's bundle ${script} is missing: run 'node scripts/build.mjs' first`);
      return { script: fs.readFileSync(script, 'utf8'), css: fs.readFileSync(css, 'utf8') };
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find dist/webview.js and media/band-panel.css above ${from}`);
    dir = up;
  }
}

/** Writes the static report for `taskwright band --html FILE` (hooked into the CLI's band command). */
export async function writeBandHtml(report: BandReport, file: string): Promise<void> {
  const sources = [...new Set(report.models.flatMap((m) => m.sources ?? []))];
  const source = sources.length === 1 ? sources[0]! : sources.length > 1 ? `${sources.length} result folders` : path.basename(file, '.html');
  await fs.promises.writeFile(file, renderBandHtml(report, { assets: loadPanelAssets(), source }));
}
