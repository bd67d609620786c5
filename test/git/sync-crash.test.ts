// `mem sync` killed at each of its steps in turn (MEM_TEST_CRASH_AFTER=n, n = 1, 2, … until a run
// finishes unkilled), then run again: the rerun finishes the sync, every entry and hand edit is
// there once, no note holds conflict markers, git fsck is clean and both clones end equal.
// Needs `npm run build`.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';
import { countLine, DAY, expectHealthy, PROFILE, twoClones } from './sync-helpers.js';

afterEach(cleanupVaults);

const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);

/** Two clones that both wrote the same day and the profile; b has synced, a has not. */
async function diverged() {
  const c = await twoClones();
  for (const [root, who] of [
    [c.a, 'a'],
    [c.b, 'b'],
  ] as const) {
    const vault = await openVault({ path: root, cache: false });
    for (let i = 0; i < 3; i++) await vault.remember({ text: `${who} said ${i}`, at: at(`12:0${i}`) });
    const abs = join(root, PROFILE);
    const text = await readFile(abs, 'utf8');
    await writeFile(
      abs,
      who === 'a' ? text.replace('- Drinks tea.', '- Drinks tea (a).') : `${text}- Edited on b.\n`,
    );
    await git(root, 'commit', '-qam', `hand edit on ${who}`);
    if (who === 'b') await vault.sync();
    await vault.close();
  }
  return c;
}

const EXPECTED = [
  'a said 0',
  'a said 1',
  'a said 2',
  'b said 0',
  'b said 1',
  'b said 2',
  '- Drinks tea (a).',
  '- Edited on b.',
];

describe('mem sync killed at every step', () => {
  it('is finished by the next run, losing and doubling nothing', async () => {
    let finished = false;
    let kills = 0;
    for (let n = 1; !finished && n < 40; n++) {
      const c = await diverged();
      const killed = await memProcess(['--vault', c.a, 'sync'], { env: { MEM_TEST_CRASH_AFTER: String(n) } });
      finished = killed.code === 0;
      if (!finished) {
        kills++;
        expect(killed.stderr, `step ${n}`).toBe('');
        const again = await memProcess(['--vault', c.a, 'sync']);
        expect(again.stderr, `step ${n}`).toBe('');
        expect(again.code, `step ${n}`).toBe(0);
      }
      const back = await memProcess(['--vault', c.b, 'sync']);
      expect(back.code, `step ${n}: ${back.stderr}`).toBe(0);
      const [na, nb] = [await expectHealthy(c.a), await expectHealthy(c.b)];
      expect(nb, `step ${n}`).toEqual(na);
      for (const text of EXPECTED) expect(countLine(na, text), `step ${n}: ${text}`).toBe(1);
      await expect(readFile(join(c.a, '.mem/pending-sync.json'))).rejects.toThrow();
    }
    expect(finished).toBe(true);
    // The sync's own steps (attributes, fetch, record, each file, HEAD, index), not just one.
    expect(kills).toBeGreaterThanOrEqual(8);
    // About 15 rounds of three CLI processes and two clones each: minutes on a loaded 2-core machine.
  }, 600_000);
});
