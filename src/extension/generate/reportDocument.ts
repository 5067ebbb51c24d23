import * as vscode from 'vscode';
import type { Ctx } from '../context';

/** Generation yield reports as read-only documents (`taskwright-report:`), never unsaved buffers. */
export const REPORT_SCHEME = 'taskwright-report';
/** Reports kept for the window's life are small; the oldest go first past this many. */
const MAX_KEPT = 50;

export class ReportDocuments implements vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly registration: vscode.Disposable;

  constructor(_ctx: Ctx) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
      provideTextDocumentContent: (uri) => this.contents.get(uri.path) ?? '# This report is no longer kept: run Generate Tasks… again.\n',
    });
  }

  /** A Uri that shows `text` read-only (Markdown, from its `.md` name); the same name replaces the old text. */
  put(name: string, text: string): vscode.Uri {
    const p = `/${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.md`;
    this.contents.delete(p);
    this.contents.set(p, text);
    while (this.contents.size > MAX_KEPT) this.contents.delete(this.contents.keys().next().value as string);
    return vscode.Uri.from({ scheme: REPORT_SCHEME, path: p });
  }

  dispose(): void {
    this.registration.dispose();
    this.contents.clear();
  }
}

export function reportDocumentsOf(ctx: Ctx): ReportDocuments {
  return ctx.service(ReportDocuments);
}
