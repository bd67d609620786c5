import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 23: no file in src/ over 500 lines, unless docs/architecture.md names it as one algorithm
// that reads better whole. A file that grows past the limit must be split or named there.
const ROOT = join(import.meta.dirname, '..', '..');
const LIMIT = 500;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[cm]?tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('source file size', () => {
  it(`keeps every src/ file at ${LIMIT} lines or names it in docs/architecture.md`, () => {
    const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const files = sourceFiles(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((path) => ({
        name: relative(join(ROOT, 'src'), path),
        lines: readFileSync(path, 'utf8').split('\n').length,
      }))
      .filter(({ lines }) => lines > LIMIT)
      .filter(({ name }) => !architecture.includes(`\`${name}\``) || !architecture.includes('over 500 lines'))
      .map(({ name, lines }) => `src/${name}: ${lines} lines`);
    expect(over, 'split these files, or name them in docs/architecture.md with their reason').toEqual([]);
  });
});
