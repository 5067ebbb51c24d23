import { escapeRegExp } from './regex';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from './syntax';

export interface ShellWord {
  /** Source text, quotes included. */
  readonly text: string;
  /** Best-effort value: quotes removed, escapes resolved; expansions kept verbatim. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

export interface ShellRedirect {
  readonly op: string;
  readonly target: string;
  readonly start: number;
  readonly end: number;
}

export interface ShellCommand {
  readonly node: SyntaxNode;
  /** Basename of the command word (`/usr/bin/pip3` → `pip3`). */
  readonly name: string;
  readonly nameWord: ShellWord;
  readonly args: readonly ShellWord[];
  readonly start: number;
  readonly end: number;
  /** Ends with `&`. */
  readonly background: boolean;
  /** Its exit status is examined: an if/while condition, the left of `&&`/`||`, or negated. */
  readonly guarded: boolean;
  /** Runs only on some paths: an if/case branch, the right of `&&`/`||`, a function body. */
  readonly conditional: boolean;
  /** `cmd || true` (or `|| :`, `|| exit 0`) — its failure is discarded. */
  readonly orTrue: boolean;
  readonly inLoop: boolean;
  readonly inFunction: boolean;
  readonly inSubstitution: boolean;
  /**
   * Its standard output goes to a file (`> log`, `&> log`, on the command or an enclosing
   * subshell/group) or into a command substitution: nothing reading the session's output sees it.
   */
  readonly stdoutCaptured: boolean;
  /** Position in a pipeline `a | b | c` (absent when not piped). */
  readonly pipeline?: { readonly index: number; readonly length: number; readonly id: number };
  readonly redirects: readonly ShellRedirect[];
  /** Its standard input is a heredoc (`python3 <<EOF`, `python3 - <<'PY'`): the program it runs is inline. */
  readonly stdinHeredoc: boolean;
}

export interface ShellOptions {
  readonly errexit: boolean;
  readonly pipefail: boolean;
}

interface OptionChange {
  readonly offset: number;
  readonly errexit?: boolean;
  readonly pipefail?: boolean;
}

export interface ShellScript {
  readonly tree: SyntaxTree;
  readonly commands: readonly ShellCommand[];
  readonly optionChanges: readonly OptionChange[];
}

const LOOPS = new Set(['while_statement', 'for_statement', 'c_style_for_statement']);
const BRANCHES = new Set(['elif_clause', 'else_clause', 'case_item']);

function wordValue(tree: SyntaxTree, n: SyntaxNode): string {
  const text = tree.text.slice(n.start, n.end);
  switch (n.type) {
    case 'raw_string':
      return text.slice(1, -1);
    case 'string': {
      let out = '';
      for (const c of n.children) {
        if (c.type === '"') continue;
        out += c.type === 'string_content' ? tree.text.slice(c.start, c.end).replace(/\\(["\\$`])/g, '$1') : tree.text.slice(c.start, c.end);
      }
      return out;
    }
    case 'concatenation':
      return n.children.map((c) => wordValue(tree, c)).join('');
    case 'word':
      return text.replace(/\\(.)/g, '$1');
    default:
      return text;
  }
}

function toWord(tree: SyntaxTree, n: SyntaxNode): ShellWord {
  return { text: tree.text.slice(n.start, n.end), value: wordValue(tree, n), start: n.start, end: n.end };
}

function isTrueCommand(tree: SyntaxTree, n: SyntaxNode): boolean {
  const t = tree.text.slice(n.start, n.end).trim();
  return t === 'true' || t === ':' || /^exit\s+0$/.test(t);
}

/** A redirect node that sends fd 1 to a file (not to the terminal or back to stdout). */
function redirectsStdout(tree: SyntaxTree, r: SyntaxNode): boolean {
  if (r.type !== 'file_redirect') return false;
  const op = r.children.find((c) => !c.named)?.type ?? '';
  const fd = childByField(r, 'descriptor');
  const fdText = fd ? tree.text.slice(fd.start, fd.end) : '';
  if (!(op === '&>' || op === '&>>' || ((op === '>' || op === '>>' || op === '>|') && (fdText === '' || fdText === '1')))) return false;
  const dest = childByField(r, 'destination');
  const to = dest ? tree.text.slice(dest.start, dest.end) : '';
  return !/^\/dev\/(stdout|tty)$/.test(to);
}

function listOperator(list: SyntaxNode): string | undefined {
  return list.children.find((c) => !c.named && (c.type === '&&' || c.type === '||'))?.type;
}

/**
 * Variables the script sets exactly once, as a statement of their own, to a literal
 * (`PYTEST="/opt/venv/bin/pytest"`, `export RUNNER=pytest`): what a command word `"$PYTEST"` runs.
 * A name also set by `for`, `read` or an env prefix (`A=b cmd`) is not known, nor one set to `$(…)`.
 */
function literalVariables(tree: SyntaxTree): ReadonlyMap<string, string> {
  const seen = new Map<string, string | undefined>();
  for (const a of descendants(tree.root, 'variable_assignment')) {
    const nameNode = childByField(a, 'name');
    if (!nameNode) continue;
    const name = tree.text.slice(nameNode.start, nameNode.end);
    const value = childByField(a, 'value');
    const literal = a.parent?.type !== 'command' && value !== undefined && ['word', 'string', 'raw_string'].includes(value.type)
      && !/[$`]/.test(tree.text.slice(value.start, value.end));
    seen.set(name, seen.has(name) || !literal || !value ? undefined : wordValue(tree, value));
  }
  const out = new Map<string, string>();
  for (const [name, value] of seen) {
    if (value === undefined || value === '') continue;
    // The parser names error-recovered assignments too (`*0=?`): the name is escaped, not trusted.
    const n = escapeRegExp(name);
    if (new RegExp(`(^|[\\s;])(for\\s+${n}\\s+in|read\\b[^\\n;|&]*\\s${n}\\b)`).test(tree.text)) continue;
    out.set(name, value);
  }
  return out;
}

function analyseCommand(tree: SyntaxTree, node: SyntaxNode, pipelineIds: Map<SyntaxNode, number>, vars: ReadonlyMap<string, string>): ShellCommand | undefined {
  const nameNode = childByField(node, 'name');
  if (!nameNode) return undefined;
  const written = toWord(tree, nameNode.children[0] ?? nameNode);
  // `"$PYTEST" /tests/test_outputs.py` runs what PYTEST was set to.
  const variable = /^\$\{?([A-Za-z_]\w*)\}?$/.exec(written.value)?.[1];
  const resolved = variable !== undefined ? vars.get(variable) : undefined;
  const nameWord = resolved !== undefined && !/\s/.test(resolved) ? { ...written, value: resolved } : written;
  const name = nameWord.value.split('/').pop() ?? nameWord.value;
  const args = node.children.filter((c) => c.field === 'argument').map((c) => toWord(tree, c));

  // The unit whose status the surrounding syntax sees: the pipeline, or the (redirected) command.
  let unit: SyntaxNode = node;
  const redirects: ShellRedirect[] = [];
  let stdinHeredoc = false;
  if (unit.parent?.type === 'redirected_statement') {
    unit = unit.parent;
    redirects.push(...redirectsOf(tree, unit));
    stdinHeredoc = unit.children.some((c) => c.type === 'heredoc_redirect');
  }
  // tree-sitter-bash hangs a trailing redirect on the whole list or pipeline (`a && b > f`,
  // `x | y > out`); bash applies it to the last command only, so it is that command's.
  for (let p = node.parent; redirects.length === 0 && p && (p.type === 'list' || p.type === 'pipeline') && p.end === node.end; p = p.parent) {
    if (p.parent?.type === 'redirected_statement' && p.field === 'body') redirects.push(...redirectsOf(tree, p.parent));
  }
  let pipeline: ShellCommand['pipeline'];
  if (unit.parent?.type === 'pipeline') {
    const p = unit.parent;
    const parts = p.children.filter((c) => c.named);
    let id = pipelineIds.get(p);
    if (id === undefined) { id = pipelineIds.size; pipelineIds.set(p, id); }
    pipeline = { index: parts.indexOf(unit), length: parts.length, id };
    unit = p;
  }
  let guarded = false;
  let conditional = false;
  let orTrue = false;
  let inLoop = false;
  let inFunction = false;
  let inSubstitution = false;
  let stdoutCaptured = redirects.length > 0 && node.parent !== null && node.parent.children.some((c) => c.field === 'redirect' && redirectsStdout(tree, c));
  let background = false;
  const after = unit.parent?.children[unit.parent.children.indexOf(unit) + 1];
  if (after && !after.named && after.type === '&') background = true;

  let child: SyntaxNode = unit;
  for (let p = unit.parent; p; child = p, p = p.parent) {
    if (p.type === 'list') {
      const op = listOperator(p);
      const named = p.children.filter((c) => c.named);
      if (named[0] === child) {
        guarded = true;
        if (op === '||' && named[1] && isTrueCommand(tree, named[1]) && child === unit) orTrue = true;
      } else {
        conditional = true;
      }
    } else if (p.type === 'negated_command') {
      guarded = true;
    } else if (p.type === 'if_statement' || p.type === 'while_statement' || p.type === 'elif_clause') {
      if (child.field === 'condition') guarded = true;
      else if (p.type !== 'while_statement') conditional = true;
    } else if (BRANCHES.has(p.type)) {
      conditional = true;
    } else if (p.type === 'function_definition') {
      inFunction = true;
      conditional = true;
    } else if (p.type === 'command_substitution' || p.type === 'process_substitution') {
      inSubstitution = true;
      stdoutCaptured = true;
    } else if (p.type === 'redirected_statement' && p.children.some((c) => c.field === 'redirect' && redirectsStdout(tree, c))) {
      stdoutCaptured = true;
    }
    if (LOOPS.has(p.type)) inLoop = true;
  }
  return {
    node, name, nameWord, args, start: node.start, end: node.end, background, guarded, conditional, orTrue,
    inLoop, inFunction, inSubstitution, stdoutCaptured, redirects, stdinHeredoc, ...(pipeline ? { pipeline } : {}),
  };
}

function redirectsOf(tree: SyntaxTree, stmt: SyntaxNode): ShellRedirect[] {
  const out: ShellRedirect[] = [];
  for (const r of stmt.children.filter((c) => c.field === 'redirect')) {
    const dest = childByField(r, 'destination');
    const op = r.children.find((c) => !c.named)?.type ?? '>';
    if (dest) out.push({ op, target: wordValue(tree, dest), start: r.start, end: r.end });
  }
  return out;
}

function optionChange(cmd: ShellCommand): OptionChange | undefined {
  if (cmd.name !== 'set') return undefined;
  let errexit: boolean | undefined;
  let pipefail: boolean | undefined;
  const words = cmd.args.map((a) => a.value);
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    const on = w.startsWith('-');
    if (/^[-+][a-zA-Z]+$/.test(w)) {
      if (w.includes('e')) errexit = on;
      if (w.includes('o') && /^(errexit|pipefail)$/.test(words[i + 1] ?? '')) {
        if (words[i + 1] === 'pipefail') pipefail = on;
        else errexit = on;
        i++;
      }
    }
  }
  if (errexit === undefined && pipefail === undefined) return undefined;
  return { offset: cmd.start, ...(errexit !== undefined ? { errexit } : {}), ...(pipefail !== undefined ? { pipefail } : {}) };
}

/**
 * Analyses by tree: the parse cache hands out the same tree for the same text, and the same scripts
 * (a dataset's shared tests/test.sh, common RUN lines) come back in task after task. The analysis is a
 * pure function of the tree and is only read, so it is shared too; it goes when the tree does.
 */
const analysed = new WeakMap<SyntaxTree, ShellScript>();

export function analyseShell(tree: SyntaxTree): ShellScript {
  let script = analysed.get(tree);
  if (!script) {
    script = analyseUncached(tree);
    analysed.set(tree, script);
  }
  return script;
}

function analyseUncached(tree: SyntaxTree): ShellScript {
  const pipelineIds = new Map<SyntaxNode, number>();
  const commands: ShellCommand[] = [];
  const vars = literalVariables(tree);
  for (const n of descendants(tree.root, 'command')) {
    const c = analyseCommand(tree, n, pipelineIds, vars);
    if (c) commands.push(c);
  }
  commands.sort((a, b) => a.start - b.start);
  const optionChanges: OptionChange[] = [];
  const shebang = /^#!\S*(?:\s+\S+)*?\s+-([a-z]*e[a-z]*)\b/.exec(tree.text.split('\n', 1)[0] ?? '');
  if (shebang) optionChanges.push({ offset: 0, errexit: true });
  for (const c of commands) {
    if (c.inFunction || c.inSubstitution) continue;
    const ch = optionChange(c);
    if (ch) optionChanges.push(ch);
  }
  return { tree, commands, optionChanges };
}

/** Where the `set -e` (or `set -o errexit`) in effect at `offset` was turned on: its offset, or undefined when off or set by the shebang. */
export function errexitSetAt(script: ShellScript, offset: number): number | undefined {
  let at: number | undefined;
  for (const ch of script.optionChanges) {
    if (ch.offset >= offset) break;
    if (ch.errexit !== undefined) at = ch.errexit && script.commands.some((c) => c.start === ch.offset && c.name === 'set') ? ch.offset : undefined;
  }
  return at;
}

export function optionsAt(script: ShellScript, offset: number): ShellOptions {
  let errexit = false;
  let pipefail = false;
  for (const ch of script.optionChanges) {
    if (ch.offset >= offset) break;
    if (ch.errexit !== undefined) errexit = ch.errexit;
    if (ch.pipefail !== undefined) pipefail = ch.pipefail;
  }
  return { errexit, pipefail };
}

const WRAPPERS = new Set(['sudo', 'env', 'nohup', 'time', 'exec', 'command', 'stdbuf', 'timeout', 'nice', 'xvfb-run', 'xargs']);
/** xargs options whose value is the next word (`xargs -n 1 pytest`, `xargs -I {} cp {} /tmp`). */
const XARGS_VALUE = /^-[nILPsdaE]$/;

const wordsCache = new WeakMap<ShellCommand, string[]>();

/** The command's words after prefix wrappers (`sudo`, `env A=b`, `timeout 60`, `xargs -0`…): `[name, ...args]`. */
export function effectiveWords(cmd: ShellCommand): string[] {
  let w = wordsCache.get(cmd);
  if (!w) { w = computeEffectiveWords(cmd); wordsCache.set(cmd, w); }
  return w;
}

function computeEffectiveWords(cmd: ShellCommand): string[] {
  const words = [cmd.name, ...cmd.args.map((a) => a.value)];
  let i = 0;
  while (i < words.length && WRAPPERS.has((words[i] ?? '').split('/').pop() ?? '')) {
    const wrapper = (words[i] ?? '').split('/').pop();
    // `command -v pytest` looks a program up; it does not run it.
    if (wrapper === 'command' && /^-[vV]$/.test(words[i + 1] ?? '')) break;
    i++;
    while (i < words.length && ((words[i] ?? '').startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? ''))) i += wrapper === 'xargs' && XARGS_VALUE.test(words[i] ?? '') ? 2 : 1;
    if (wrapper === 'timeout' && /^\d/.test(words[i] ?? '')) i++;
  }
  const out = words.slice(i);
  if (out[0]) out[0] = out[0].split('/').pop() ?? out[0];
  return out;
}
