import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const AT = new Date('2026-12-02T09:00:00Z');
const DAY = 'episodes/daily/2026-12-02.md';

// A person's edits between mem's writes: deleting some of mem's entries (any of them, the last
// ones, all), or the whole note; with or without the cache of ids given out.
const edit = fc.record({
  drop: fc.array(fc.boolean(), { maxLength: 8 }),
  wholeNote: fc.boolean(),
  loseCache: fc.boolean(),
});

describe('block ids of a day', () => {
  it('are never handed out twice, whatever a person deletes, so a citation never moves to another entry', async () => {
    await fc.assert(
      // `tagged`: a vault with a remote, whose ids carry this device's tag (`^e3-k7q2`).
      fc.asyncProperty(
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (edits, tagged) => {
          const root = await makeVault({}, { config: { timezone: 'UTC' } });
          if (tagged) {
            await gitInit(root);
            await git(root, 'remote', 'add', 'origin', join(root, 'nowhere.git'));
          }
          const vault = await openVault({ path: root, cache: false });
          const given = new Map<string, string>(); // id -> the text it was given to
          let n = 0;
          const add = async () => {
            const text = `entry number ${n++}`;
            const { blockId } = await vault.remember({ text, at: AT, commit: false });
            expect(given.has(blockId), `${blockId} given twice`).toBe(false);
            expect(blockId).toMatch(tagged ? /^e\d+-[0-9a-z]{4}$/ : /^e\d+$/);
            given.set(blockId, text);
          };
          for (const e of edits) {
            await add();
            await add();
            // Every id given out so far is cited by an insight, as reflect would cite it.
            const cites = [...given.keys()].map((id) => `- [[2026-12-02#^${id}]]`).join('\n');
            await writeFile(join(root, 'insights/cites.md'), `# Cites\n${cites}\n`).catch(async () => {
              await vault.createNote({ path: 'insights/cites', body: cites });
            });
            await vault.refresh();
            const text = await readFile(join(root, DAY), 'utf8');
            const kept = e.wholeNote
              ? undefined
              : text
                  .split('\n')
                  .filter(
                    (line, i) => !(/\^e\d+(-\w+)?$/.test(line) && e.drop[i % Math.max(1, e.drop.length)]),
                  )
                  .join('\n');
            if (kept === undefined) await rm(join(root, DAY));
            else await writeFile(join(root, DAY), kept);
            if (e.loseCache) await rm(join(root, '.mem/block-ids.json'), { force: true });
            await vault.refresh();
          }
          await add();
          // Each id in the note names the text it was given to.
          const text = await readFile(join(root, DAY), 'utf8');
          for (const [, words, id] of text.matchAll(/^- \d\d:\d\d (.*) \^(e\d+(?:-[0-9a-z]+)?)$/gm))
            expect(given.get(id!), id).toBe(words);
          await vault.close();
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
