import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { errorReply } from '../../src/serve/http.js';

const SRC = join(import.meta.dirname, '../../src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? sourceFiles(path) : Promise.resolve(path.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

describe('a refused argument', () => {
  it('exits 2 from the CLI, like a wrong command line, and is a 400 over HTTP', () => {
    const error = new MemError('INVALID_ARGUMENT', 'now must be an ISO 8601 date or time, got "soon"');
    expect(error.exitCode).toBe(2);
    expect(errorReply(error, () => undefined)).toEqual({
      status: 400,
      body: { error: 'now must be an ISO 8601 date or time, got "soon"', code: 'INVALID_ARGUMENT' },
    });
  });

  it('other library errors still exit 1', () => {
    expect(new MemError('NOT_FOUND', 'note not found: x').exitCode).toBe(1);
    expect(new MemError('CONFLICT', 'the note changed').exitCode).toBe(1);
  });

  it('no module names INVALID_INPUT, which was merged into INVALID_ARGUMENT', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if ((await readFile(file, 'utf8')).includes("'INVALID_INPUT'")) offenders.push(relative(SRC, file));
    }
    expect(offenders).toEqual([]);
  });

  it('the library never throws USAGE: that code is the command line’s alone', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const path = relative(SRC, file).replaceAll('\\', '/');
      if (path.startsWith('cli/') || path === 'core/errors.ts') continue;
      if ((await readFile(file, 'utf8')).includes("'USAGE'")) offenders.push(path);
    }
    expect(offenders).toEqual([]);
  });
});
