import { readdir } from 'node:fs/promises';
import * as vscode from 'vscode';
import { RULES } from '../../core/audit/registry';
import { checkDocsUrl, ruleHelpUri } from '../../core/audit/sarif';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';

export const OPEN_RULE_COMMAND = 'taskwright.rules.open';

/**
 * Where a rule's page is: the https page under `taskwright.rules.docsUrl` when that is set (and
 * https), else the page shipped in the VSIX (docs/rules/<rule>.md), shown as rendered Markdown beside
 * the editor — never in place of the file being edited. Diagnostics link here through a command URI,
 * so a click on a finding's code opens the page the same way as "Open Rule Page…".
 */
export class RulePages {
  private shipped = new Set<string>();
  private readonly ready: Promise<void>;

  constructor(private readonly ctx: Ctx) {
    this.ready = this.index();
  }

  /** Resolves once the shipped pages are listed (before it, a rule has a page only under docsUrl). */
  whenIndexed(): Promise<void> {
    return this.ready;
  }

  /** The configured https base, or undefined (with a warning in the log when it is not https). */
  docsBase(): string | undefined {
    const base = this.ctx.config.get('rules.docsUrl').trim();
    if (!base) return undefined;
    const bad = checkDocsUrl(base);
    if (bad) {
      this.ctx.log.warn(`settings: taskwright.rules.docsUrl: ${bad}; using the pages shipped with the extension`);
      return undefined;
    }
    return base;
  }

  /** The page shipped with the extension, when there is one. */
  shippedPage(rule: string): vscode.Uri | undefined {
    return this.shipped.has(rule) ? this.ctx.asset('docs', 'rules', `${rule}.md`) : undefined;
  }

  /** The target of a diagnostic's code link: the https page, or the command that opens the shipped page. */
  linkTarget(rule: string): vscode.Uri | undefined {
    const base = this.docsBase();
    if (base) return vscode.Uri.parse(ruleHelpUri(rule, base));
    if (!this.shipped.has(rule)) return undefined;
    return vscode.Uri.parse(`command:${OPEN_RULE_COMMAND}?${encodeURIComponent(JSON.stringify([rule]))}`);
  }

  /** Opens the rule's page: in the browser when docsUrl is set, else rendered beside the editor. */
  async open(rule: string): Promise<vscode.Uri | undefined> {
    const base = this.docsBase();
    if (base) {
      const uri = vscode.Uri.parse(ruleHelpUri(rule, base));
      await vscode.env.openExternal(uri);
      return uri;
    }
    await this.ready;
    const page = this.shippedPage(rule);
    if (!page) {
      void vscode.window.showInformationMessage(`Taskwright: no page for rule '${rule}' ships with this extension.`);
      return undefined;
    }
    // The built-in Markdown preview, to the side: the editor being read stays where it is.
    await vscode.commands.executeCommand('markdown.showPreviewToSide', page);
    return page;
  }

  private async index(): Promise<void> {
    try {
      const names = await readdir(this.ctx.asset('docs', 'rules').fsPath);
      this.shipped = new Set(names.filter((n) => n.endsWith('.md') && n !== 'README.md').map((n) => n.slice(0, -3)));
    } catch {
      this.ctx.log.warn('No rule documentation (docs/rules) in the extension: diagnostics will not link to it.');
    }
  }

  dispose(): void {
    // Nothing held: the index is a set of names.
  }
}

/** The rule pages of this extension context (one index of the shipped pages). */
export function rulePagesOf(ctx: Ctx): RulePages {
  return ctx.service(RulePages);
}

/** Taskwright: Open Rule Page… — a rule id (the diagnostic's link passes it), or pick one. */
export const openRulePage: CommandSpec = {
  id: OPEN_RULE_COMMAND,
  async run(ctx, arg?: unknown) {
    const rule = typeof arg === 'string' ? arg : (await vscode.window.showQuickPick(
      RULES.map((r) => ({ label: r.id, description: r.severity, detail: r.title })),
      { placeHolder: 'Rule whose page to open', matchOnDetail: true },
    ))?.label;
    if (!rule) return undefined;
    return rulePagesOf(ctx).open(rule);
  },
};
