import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** Set by a test: runs just before mem's rename, as a hand edit landing in the last moment would. */
const race: { before?: (to: string) => Promise<void> } = {};

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    rename: async (from: string, to: string) => {
      const hook = race.before;
      if (hook && from.endsWith('.tmp')) {
        race.before = undefined;
        await hook(to);
      }
      return real.rename(from, to);
    },
  };
});

const { updateFile } = await import('../../src/vault/write-note.js');

describe('a rewrite re-checks the file after its rename', () => {
  it('a hand edit saved in place between the check and the rename is kept, and the change is made on top', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-recheck-'));
    const file = join(dir, 'note.md');
    await writeFile(file, 'one\n');
    race.before = async (to) => {
      await writeFile(to, 'one\nhand edit\n');
    };

    const result = await updateFile(file, (text) => `${text ?? ''}mem line\n`);

    expect(result.changed).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('one\nhand edit\nmem line\n');
  });
});
