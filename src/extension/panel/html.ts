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

/**
 * The webview's page: no data in it (data arrives by message after `ready`), one script by nonce,
 * one stylesheet from `cspSource`. lit (under @vscode-elements) styles its components with
 * constructable stylesheets, which the CSP does not govern, so no 'unsafe-inline' is needed.
 */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce = cspNonce()): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'band-panel.css'));
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
<title>Solvability Band</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
