import { checkDocsUrl, DEFAULT_DOCS_URL } from '../../core/audit/sarif';
import type { Severity } from '../../core/model/finding';
import { boolOpt, choiceOpt, intOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { runAudit } from '../audit/run';
import { VERSION } from '../version';

export type { AuditJson } from '../audit/jsonWriter';

const FORMATS = ['text', 'json', 'sarif'] as const;
const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;
const SEVERITIES = ['error', 'warning', 'info'] as const;

export const auditCommand: CliCommand = {
  name: 'audit',
  summary: 'Audit tasks for brittle harnesses, misaligned rewards and invalid setups (static, no Docker)',
  usage: [
    'taskwright audit PATH... [--format text|json|sarif] [--fail-on error|warning|info|never] [--min-severity info|warning|error]',
    '                         [--baseline FILE] [--write-baseline FILE] [--show-baselined] [--expand] [--jobs N] [--docs-url URL]',
    '',
    '  PATH              a folder to search for tasks, or a task folder; default "."',
    '  --format          text (default, grouped by task), json ({"version":1,"tool":"taskwright","tasks":[...],"conventions":[...]}),',
    '                    or sarif (SARIF 2.1.0 for code scanning; paths relative to %SRCROOT%)',
    '  --fail-on         exit 1 when a reported finding is at least this severe (default error); never: always exit 0',
    '  --min-severity    leave out findings below this severity (default info: everything; warning drops notes)',
    '  --baseline        report only findings not in this baseline (matched by rule, file and the line\'s text)',
    '  --write-baseline  write every finding of this run to FILE as a baseline',
    '  --show-baselined  also report baselined findings (marked; SARIF baselineState unchanged/absent)',
    '  --expand          list dataset conventions under every task instead of once per dataset',
    '  --jobs            worker threads (default: one per core; 1 audits in the main thread)',
    `  --docs-url        https base of the rule pages for SARIF helpUri (default TASKWRIGHT_DOCS_URL or ${DEFAULT_DOCS_URL})`,
    '',
    'A dataset convention is one finding (same rule, file and line text) in more than half of a dataset\'s',
    'tasks and at least 5 of them; text shows it once with its count, json lists it in "conventions".',
    'Per-folder rule settings: taskwright.json or .taskwright.yaml {"rules": {"<rule-id>": "off|info|warning|error"}}',
    '(the nearest folder wins). Inline: `# taskwright: ignore[rule-id]` on the line or the line above.',
    'Exit status: 0 clean, 1 a finding reached --fail-on, 2 usage error.',
  ].join('\n'),
  options: {
    format: { type: 'string' }, 'fail-on': { type: 'string' }, 'min-severity': { type: 'string' },
    baseline: { type: 'string' }, 'write-baseline': { type: 'string' }, 'show-baselined': { type: 'boolean' },
    expand: { type: 'boolean' }, jobs: { type: 'string' }, 'docs-url': { type: 'string' },
  },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const format = choiceOpt(args, 'format', FORMATS, 'text');
    const failOn = choiceOpt(args, 'fail-on', FAIL_ON, 'error');
    const minSeverity = choiceOpt(args, 'min-severity', SEVERITIES, 'info');
    const docsUrl = stringOpt(args, 'docs-url') ?? io.env['TASKWRIGHT_DOCS_URL'] ?? DEFAULT_DOCS_URL;
    const bad = checkDocsUrl(docsUrl);
    if (bad) throw new UsageError(bad);
    const jobs = stringOpt(args, 'jobs') === undefined ? undefined : intOpt(args, 'jobs', 1);
    const baseline = stringOpt(args, 'baseline');
    const writeBaseline = stringOpt(args, 'write-baseline');
    return runAudit(args.positionals, {
      format, failOn: failOn === 'never' ? undefined : failOn as Severity, minSeverity,
      ...(baseline ? { baseline } : {}), ...(writeBaseline ? { writeBaseline } : {}), ...(jobs ? { jobs } : {}),
      showBaselined: boolOpt(args, 'show-baselined'), expand: boolOpt(args, 'expand'), docsUrl, version: VERSION,
    }, io);
  },
};
