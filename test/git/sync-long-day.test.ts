// `mem sync` of a day both clones filled with 150,000 entries under the same ids: the merge keeps
// every entry once, gives theirs new ids, and reports each; no step overflows the stack (the
// renumbered list was spread into a call) or takes the square of the day's length.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/config.js';
import { syncVault } from '../../src/write/sync/sync-vault.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { DAY_PATH, twoClones } from './sync-helpers.js';

afterAll(cleanupVaults);

const N = 150_000;

async function fillDay(root: string, who: string): Promise<void> {
  const file = join(root, DAY_PATH);
  const lines: string[] = [];
  for (let i = 2; i <= N + 1; i++) lines.push(`- 09:00 **${who}:** ${who} said ${i} ^e${i}`);
  await writeFile(file, `${await readFile(file, 'utf8')}${lines.join('\n')}\n`);
  await git(root, 'add', '-A');
  await git(root, 'commit', '-q', '-m', `${who}'s long day`);
}

describe('mem sync on a long day', () => {
  it('merges two 150,000-entry versions of one day, every id clashing: all kept, theirs renumbered', async () => {
    const c = await twoClones();
    await fillDay(c.a, 'Rain');
    await fillDay(c.b, 'Aiko');
    expect((await syncVault(c.a, await loadConfig(c.a))).code).toBe('pushed');
    const merged = await syncVault(c.b, await loadConfig(c.b));
    expect(merged.code).toBe('merged');
    expect(merged.renumbered).toHaveLength(N);
    const day = await readFile(join(c.b, DAY_PATH), 'utf8');
    const ids = [...day.matchAll(/ \^(e\d+)$/gm)].map((m) => m[1]);
    expect(ids).toHaveLength(2 * N + 1);
    expect(new Set(ids).size).toBe(ids.length);
    for (const said of ['Rain said 2 ', 'Aiko said 2 ', `Rain said ${N + 1} `, `Aiko said ${N + 1} `])
      expect(day.split('\n').filter((l) => l.includes(said))).toHaveLength(1);
  }, 120_000);
});
