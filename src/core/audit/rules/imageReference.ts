/**
 * A `FROM` that Docker cannot parse as an image reference: a placeholder left in (`<digest>`), a
 * sha256 digest that is not 64 hex digits, capitals in the repository. The build stops at that line,
 * so no attempt, the oracle's included, ever runs. Grammar from the distribution reference format.
 */
import type { DockerFrom } from '../../parse/dockerfile';
import type { Report, StaticRule } from '../rule';
import { dfFile } from './dockerfile';

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:localhost|[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*)(?::\d+)?$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST_HEX: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** Why `ref` is not a valid image reference, or undefined when it is one. */
export function invalidReference(ref: string): string | undefined {
  if (/[<>{}]/.test(ref)) return 'it still holds a placeholder';
  const at = ref.indexOf('@');
  const named = at >= 0 ? ref.slice(0, at) : ref;
  if (at >= 0) {
    const m = /^([a-z0-9]+):(.*)$/.exec(ref.slice(at + 1));
    const want = m ? DIGEST_HEX[m[1] ?? ''] : undefined;
    if (!m || want === undefined) return 'its digest is not `sha256:` followed by hex digits';
    const hex = m[2] ?? '';
    if (!/^[0-9a-f]*$/.test(hex)) return `its ${m[1] ?? ''} digest holds characters other than lowercase hex digits`;
    if (hex.length !== want) return `its ${m[1] ?? ''} digest has ${hex.length} hex digits instead of ${want}`;
  }
  // The tag follows the last colon after the last slash (a registry's port comes before a slash).
  const slash = named.lastIndexOf('/');
  const colon = named.indexOf(':', slash + 1);
  const path = colon >= 0 ? named.slice(0, colon) : named;
  const tag = colon >= 0 ? named.slice(colon + 1) : undefined;
  if (tag !== undefined && !TAG.test(tag)) return `its tag \`${tag}\` is not a valid tag`;
  const parts = path.split('/');
  const first = parts[0] ?? '';
  const hasDomain = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasDomain && !DOMAIN.test(first)) return `its registry \`${first}\` is not a host name`;
  const repo = hasDomain ? parts.slice(1) : parts;
  if (repo.length === 0 || repo.some((c) => !COMPONENT.test(c))) {
    return repo.some((c) => /[A-Z]/.test(c)) ? 'a repository name must be lowercase' : 'its repository name is not valid';
  }
  return undefined;
}

function* invalidFroms(file: string, froms: readonly DockerFrom[]): Generator<Report> {
  const stages = new Set(froms.map((f) => f.stage?.toLowerCase()).filter((s): s is string => !!s));
  for (const from of froms) {
    const ref = from.image;
    // Build arguments are resolved at build time; an earlier stage is a name, not a reference.
    if (!ref || ref.includes('$') || stages.has(ref.toLowerCase())) continue;
    const why = invalidReference(ref);
    if (!why) continue;
    yield {
      file, range: from.imageRange ?? from.instruction.range,
      message: `\`FROM ${ref}\` is not an image reference Docker can parse (${why}): the build stops here, so no attempt, the reference solution's included, ever runs. Use a real tag, or a digest copied from \`docker buildx imagetools inspect\`.`,
    };
  }
}

export const baseImageInvalidReference: StaticRule = {
  id: 'base-image-invalid-reference', class: 'invalidity', severity: 'error',
  title: 'The base image reference cannot be parsed (placeholder digest, wrong digest length, capitals)',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (df) yield* invalidFroms(dfFile(ctx), df.froms);
  },
};
