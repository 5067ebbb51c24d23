import { Copy, DockerfileParser, From, type Instruction } from 'dockerfile-ast';
import { LineIndex, type Range } from '../model/positions';
import { analyseShell, type ShellScript } from './shell';
import { parseSync } from './treeSitter';

export interface DockerArg {
  readonly value: string;
  readonly range: Range;
}

export interface DockerInstruction {
  readonly keyword: string;
  readonly range: Range;
  readonly args: readonly DockerArg[];
  readonly flags: ReadonlyMap<string, string | null>;
  /** Offset of the first argument character in the Dockerfile text. */
  readonly argsOffset: number;
  /** Raw text of the arguments, continuation lines included. */
  readonly argsText: string;
}

export interface DockerFrom {
  readonly instruction: DockerInstruction;
  readonly image: string;
  readonly name?: string;
  readonly tag?: string;
  readonly digest?: string;
  readonly stage?: string;
  readonly imageRange?: Range;
}

export interface DockerCopy {
  readonly instruction: DockerInstruction;
  readonly sources: readonly DockerArg[];
  readonly dest?: DockerArg;
  /** `--from=<stage|image>`: sources come from another image, not the build context. */
  readonly from?: string;
}

export interface DockerRun {
  readonly instruction: DockerInstruction;
  /** The shell form parsed with the Bash grammar; offsets are relative to `instruction.argsOffset`. */
  readonly shell?: ShellScript;
  readonly heredoc: boolean;
}

export interface ParsedDockerfile {
  readonly text: string;
  readonly lines: LineIndex;
  readonly instructions: readonly DockerInstruction[];
  readonly froms: readonly DockerFrom[];
  readonly copies: readonly DockerCopy[];
  readonly runs: readonly DockerRun[];
  readonly syntaxDirective?: string;
}

function toInstruction(i: Instruction, lines: LineIndex): DockerInstruction {
  const argsRange = i.getArgumentsRange();
  const r = i.getRange();
  const argsOffset = argsRange ? lines.offsetAt(argsRange.start) : lines.offsetAt(r.end);
  const endOffset = lines.offsetAt(r.end);
  const flags = new Map<string, string | null>();
  const withFlags = i as Instruction & { getFlags?: () => { getName(): string; getValue(): string | null }[] };
  if (typeof withFlags.getFlags === 'function') for (const f of withFlags.getFlags()) flags.set(f.getName().toLowerCase(), f.getValue());
  return {
    keyword: i.getKeyword().toUpperCase(),
    range: r,
    args: i.getArguments().map((a) => ({ value: a.getValue(), range: a.getRange() })),
    flags,
    argsOffset,
    argsText: lines.text.slice(argsOffset, endOffset),
  };
}

const CACHE_LIMIT = 200;
const cache = new Map<string, ParsedDockerfile>();

/** Parses a Dockerfile (cached by content: re-audits after an edit elsewhere reuse it). */
export function parseDockerfile(text: string): ParsedDockerfile {
  const hit = cache.get(text);
  if (hit) return hit;
  const parsed = parseUncached(text);
  cache.set(text, parsed);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return parsed;
}

function parseUncached(text: string): ParsedDockerfile {
  const lines = new LineIndex(text);
  const doc = DockerfileParser.parse(text);
  const instructions: DockerInstruction[] = [];
  const froms: DockerFrom[] = [];
  const copies: DockerCopy[] = [];
  const runs: DockerRun[] = [];
  for (const raw of doc.getInstructions()) {
    const ins = toInstruction(raw, lines);
    instructions.push(ins);
    if (raw instanceof From) {
      const imageRange = raw.getImageRange();
      froms.push({
        instruction: ins,
        image: raw.getImage() ?? '',
        ...(raw.getImageName() ? { name: raw.getImageName() as string } : {}),
        ...(raw.getImageTag() ? { tag: raw.getImageTag() as string } : {}),
        ...(raw.getImageDigest() ? { digest: raw.getImageDigest() as string } : {}),
        ...(raw.getBuildStage() ? { stage: raw.getBuildStage() as string } : {}),
        ...(imageRange ? { imageRange } : {}),
      });
    } else if (ins.keyword === 'COPY' || ins.keyword === 'ADD') {
      const args = ins.args;
      const json = ins.argsText.trimStart().startsWith('[');
      // Shell-form COPY/ADD words are quoted like shell words (`COPY "my dir/" /app/`): Docker
      // removes the quotes, so sources and destination are compared without them.
      const parts: DockerArg[] = json ? jsonArgs(ins, lines) : args.map(unquoted);
      // `--from=<stage|image>` read from the flag list: dockerfile-ast's getFromFlag() misses it beside
      // another flag (`COPY --from=build --chown=u /src/ …`) and ADD has none, and such sources come
      // from another image, never from the build context.
      const from = ins.flags.get('from') ?? (raw instanceof Copy ? raw.getFromFlag()?.getValue() : undefined) ?? undefined;
      // `COPY <<EOT /app/x` writes the file from the Dockerfile itself: nothing comes from the context.
      const inline = !json && /^\s*(?:--\S+\s+)*<<-?\s*['"]?\w+/.test(ins.argsText);
      copies.push({
        instruction: ins,
        sources: inline ? [] : parts.slice(0, -1),
        ...(parts.length > 1 ? { dest: parts[parts.length - 1] as DockerArg } : {}),
        ...(from ? { from } : {}),
      });
    } else if (ins.keyword === 'RUN') {
      const body = ins.argsText;
      const heredoc = /^\s*(?:--\S+\s+)*<<-?\s*['"]?\w+/.test(body) || /<<-?\s*['"]?[A-Za-z_]\w*['"]?\s*(?:\n|$|[|>&;])/.test(body.split('\n', 1)[0] ?? '');
      let shell: ShellScript | undefined;
      if (!body.trimStart().startsWith('[')) {
        // Strip RUN flags (--mount=…, --network=…) before handing the command to the shell grammar,
        // keeping offsets by blanking them.
        const blanked = body.replace(/^(\s*(?:--\S+\s+)*)/, (m) => ' '.repeat(m.length));
        shell = analyseShell(parseSync('bash', blanked));
      }
      runs.push({ instruction: ins, heredoc, ...(shell ? { shell } : {}) });
    }
  }
  const syntax = doc.getDirectives().find((d) => d.getName().toLowerCase() === 'syntax')?.getValue() ?? undefined;
  return { text, lines, instructions, froms, copies, runs, ...(syntax ? { syntaxDirective: syntax } : {}) };
}

function unquoted(a: DockerArg): DockerArg {
  const m = /^(["'])(.*)\1$/s.exec(a.value);
  return m ? { value: m[2] ?? '', range: a.range } : a;
}

function jsonArgs(ins: DockerInstruction, lines: LineIndex): DockerArg[] {
  const out: DockerArg[] = [];
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(ins.argsText); m; m = re.exec(ins.argsText)) {
    const start = ins.argsOffset + m.index;
    out.push({ value: m[1] ?? '', range: lines.rangeOf(start, start + m[0].length) });
  }
  return out;
}
