import type * as vscode from 'vscode';
import { cspNonce, webviewHtml } from '../panel/html';

/** The trial viewer's page (the trial arrives by message after `ready`). */
export function trialHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce = cspNonce()): string {
  return webviewHtml(webview, extensionUri, { script: 'trialWebview.js', stylesheet: 'trial-panel.css', title: 'Trial' }, nonce);
}
