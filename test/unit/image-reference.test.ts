/** The image reference grammar base-image-invalid-reference checks FROM lines against. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invalidReference } from '../../src/core/audit/rules/imageReference';

const HEX64 = '3f1c2b4a5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708';

void describe('image references', () => {
  void it('accepts what Docker accepts: tags, digests, registries with ports, nested paths, scratch', () => {
    for (const ref of ['python:3.12-slim-bookworm', `python:3.12-slim@sha256:${HEX64}`, `ubuntu@sha256:${HEX64}`, 'ghcr.io/astral-sh/uv:0.5.11',
      'localhost:5000/team/base:1.0', 'mcr.microsoft.com/dotnet/sdk:8.0', 'nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04', 'scratch', 'my_org/my-image__x:v1.2_rc-3',
      'registry.example.com:443/a/b/c']) {
      assert.equal(invalidReference(ref), undefined, ref);
    }
  });

  void it('names what is wrong: a placeholder, a short or non-hex digest, capitals, a bad tag', () => {
    assert.match(invalidReference('python:3.11-slim@sha256:<digest>') ?? '', /placeholder/);
    assert.match(invalidReference(`python:3.11-slim@sha256:${HEX64.slice(1)}`) ?? '', /63 hex digits instead of 64/);
    assert.match(invalidReference(`python@sha256:${HEX64.slice(0, 60)}zzzz`) ?? '', /lowercase hex/);
    assert.match(invalidReference('Ubuntu:22.04') ?? '', /lowercase/);
    assert.match(invalidReference('python:3.11+slim') ?? '', /tag/);
    assert.match(invalidReference('python@md5:abc') ?? '', /digest/);
  });
});
