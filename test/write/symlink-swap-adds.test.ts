import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

const outsides: string[] = [];
afterEach(async () => {
  await cleanupVaults();
  await Promise.all(outsides.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const AT = new Date('2026-11-30T04:00:00Z');

/** Every file below `dir`, as paths relative to it */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('a folder of the day note swapped for a symlink between two adds', () => {
  // The path checks run on every add: nothing this process learned from the first add (a kept
  // descriptor, a resolved folder) lets the second write through a link that leaves the vault.
  it('refuses the next add, writes nothing outside the vault, and keeps the add journaled', async () => {
    const random = seeded(33);
    for (let round = 0; round < 6; round++) {
      const root = await makeVault({});
      const outside = await mkdtemp(join(tmpdir(), 'mem-outside-'));
      outsides.push(outside);
      const vault = await openVault({ path: root });
      try {
        const first = await vault.addExchange({ user: `first ${round}`, assistant: 'ok', at: AT });
        expect(first.written).toBe(true);
        // Which folder is swapped (the day's folder or the one above it), and whether the link's
        // target already has a day note of the same name.
        const swapped = random() < 0.5 ? 'episodes/daily' : 'episodes';
        const inside = swapped === 'episodes' ? join(outside, 'daily') : outside;
        if (random() < 0.5) {
          await mkdir(inside, { recursive: true });
          await writeFile(join(inside, '2026-11-30.md'), '# not the vault\n');
        }
        const before = await filesBelow(outside);
        await rename(join(root, swapped), join(root, `${swapped}.moved`));
        await symlink(outside, join(root, swapped), 'dir');

        if (random() < 0.5) {
          const refused = await vault.remember({ text: `second ${round}`, at: AT }).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(refused).toBeInstanceOf(MemError);
          expect((refused as MemError).code).toBe('PATH_OUTSIDE_VAULT');
        } else {
          const second = await vault.addExchange({ user: `second ${round}`, assistant: 'ok', at: AT });
          // Accepted (journaled), not written: the write is refused and retried later.
          expect(second.written).toBe(false);
          expect((await vault.writerHealth()).lastError).toMatch(/outside the vault/);
        }
        expect(await filesBelow(outside)).toEqual(before);
      } finally {
        await vault.close();
      }
    }
  });
});
