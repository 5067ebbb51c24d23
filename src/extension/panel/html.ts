import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A CSP nonce from the OS's CSPRNG (never Math.random): 128 bits, base64. */
export function cspNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Folders the webview may load from: the bundle and the stylesheet, nothing else of the extension. */
export function panelResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** One page of a Taskwright webview: its bundle (in `dist/`), its stylesheet (in `media/`) and its title. */
export interface WebviewPage {
  readonly script: string;
  readonly stylesheet: string;
  readonly title: string;
}

/**
 * A webview's page: no data in it (data arrives by message after `ready`), one script by nonce,
 * one stylesheet from `cspSource`, nothing inline. lit (under @vscode-elements) styles its
 * components with constructable stylesheets, which the CSP does not govern, so no 'unsafe-inline'
 * is needed. Every panel builds its page here, so the CSP is written once.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage, nonce = cspNonce()): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', page.script));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', page.stylesheet));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${css.toString()}" rel="stylesheet">
<title>${page.title}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** The band panel's page. */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce = cspNonce()): string {
  return webviewHtml(webview, extensionUri, { script: 'webview.js', stylesheet: 'band-panel.css', title: 'Solvability Band' }, nonce);
}
