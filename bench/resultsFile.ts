import fs from 'node:fs';
import path from 'node:path';

/**
 * Replaces one benchmark's section of bench/RESULTS.md (between `<!-- NAME:begin -->` and
 * `<!-- NAME:end -->`, which `section` must carry), or appends it; the other benchmarks' sections stay.
 */
export function writeResultsSection(name: string, section: string): void {
  const file = path.resolve(__dirname, '../../bench/RESULTS.md');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n';
  const re = new RegExp(`<!-- ${name}:begin -->[\\s\\S]*?<!-- ${name}:end -->`);
  fs.writeFileSync(file, re.test(text) ? text.replace(re, () => section) : `${text.trimEnd()}\n\n${section}\n`);
}
