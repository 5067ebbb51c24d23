import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadTask } from '../../src/core/loader/index';
import { configParseProblem } from '../../src/core/loader/problems';

void describe('configParseProblem: why a task config does not parse', () => {
  const temps: string[] = [];
  after(async () => { for (const t of temps) await fs.rm(t, { recursive: true, force: true }); });

  void it('names the parser\'s message and line for TOML and YAML, and nothing for a config that parses', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'tw-parse-'));
    temps.push(root);
    const toml = path.join(root, 'bad-toml');
    await fs.mkdir(toml);
    await fs.writeFile(path.join(toml, 'task.toml'), 'version = "1.0"\n\n[metadata\n');
    const yaml = path.join(root, 'bad-yaml');
    await fs.mkdir(yaml);
    await fs.writeFile(path.join(yaml, 'task.yaml'), 'instruction: |\n  do it\ndifficulty: [easy\n');
    const good = path.join(root, 'good');
    await fs.mkdir(good);
    await fs.writeFile(path.join(good, 'task.yaml'), 'instruction: do it\ndifficulty: easy\n');

    const t = await loadTask(toml);
    assert.match(configParseProblem(t.id, t.problems) ?? '', /^task\.toml is not valid TOML: .+ \(line 3\)$/);
    const y = await loadTask(yaml);
    assert.match(configParseProblem(y.id, y.problems) ?? '', /^task\.yaml is not valid YAML: .+ \(line \d+\)$/);
    const g = await loadTask(good);
    assert.equal(configParseProblem(g.id, g.problems), undefined);
  });
});
