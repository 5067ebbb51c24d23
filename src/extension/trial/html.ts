import * as vscode from 'vscode';
import { cspNonce } from '../panel/html';

/**
 * The trial viewer's page: no data in it (the trial arrives by message after `ready`), one script by
 * nonce, one stylesheet from `cspSource`, nothing inline.
 */
export function trialHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce = cspNonce()): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'trialWebview.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'trial-panel.css'));
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
<title>Trial</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
