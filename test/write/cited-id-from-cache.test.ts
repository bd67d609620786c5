// The highest id other notes cite in a day is found from the link graph as the vault opened it:
// from the cache, the saved link rows give the places of the links to a day that exists, and the
// saved names of unresolved links say whether any may cite a day that does not (so that the notes
// holding them are decoded only then). Generated vaults cite days in every form a link takes; the
// ids a vault opened from its cache hands out must be those one opened without a cache hands out,
// and above every id cited.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const DAYS = ['2026-12-01', '2026-12-02', '2026-12-03'];

/**
 * What a daily note's name holds after its date: nothing, or letters whose lower case is not
 * ASCII (a Greek final sigma, whose lower case depends on the letter after it; an accent written
 * decomposed, which NFC composes).
 */
const SUFFIXES = ['', ' ΑΣ', ' Cafe\u0301'];

/** A link to a day as people write it: by name, by path, with `.md`, in other case, to an entry or not. */
const cite = (suffix: string) =>
  fc
    .record({
      day: fc.constantFrom(...DAYS),
      form: fc.constantFrom('name', 'path', 'md', 'other-folder'),
      lower: fc.boolean(),
      anchor: fc.oneof(
        fc.integer({ min: 1, max: 40 }).map((n) => `#^e${n}`),
        fc.constantFrom('', '#Heading', '#^x1'),
      ),
    })
    .map(({ day, form, lower, anchor }) => {
      const name = lower ? `${day}${suffix}`.toLowerCase() : `${day}${suffix}`;
      const target =
        form === 'name'
          ? name
          : form === 'path'
            ? `episodes/daily/${name}`
            : form === 'md'
              ? `${name}.md`
              : `elsewhere/${name}`;
      return `[[${target}${anchor}]]`;
    });

const vaultFiles = (suffix: string) =>
  fc.record({
    notes: fc.array(fc.array(cite(suffix), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
    // Days that exist before the adds, each with entries of its own ids.
    existing: fc.subarray(DAYS),
    adds: fc.array(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 4 }),
  });

/** The highest `^eN` the files cite in the day note `file`, by its name or its path, in any case. */
function citedIn(files: Record<string, string>, file: string): number {
  let top = 0;
  const path = `episodes/daily/${file}`.toLowerCase();
  const base = file.toLowerCase();
  for (const [name, text] of Object.entries(files)) {
    if (name === `episodes/daily/${file}.md`) continue;
    for (const [, target, n] of text.matchAll(/\[\[([^\]#|]*)#\^e(\d+)\]\]/g)) {
      const named = (target as string).toLowerCase().replace(/\.md$/, '');
      if (named === base || named === path) top = Math.max(top, Number(n));
    }
  }
  return top;
}

async function idsHandedOut(root: string, adds: string[], cache: boolean): Promise<string[]> {
  const vault = await openVault({ path: root, cache });
  try {
    const ids: string[] = [];
    for (const [k, day] of adds.entries()) {
      const { blockId } = await vault.remember({
        text: `entry ${k}`,
        at: new Date(`${day}T09:0${k}:00Z`),
        commit: false,
      });
      ids.push(blockId);
    }
    return ids;
  } finally {
    await vault.close();
  }
}

describe('the ids cited in a day, from the cache', () => {
  it.each(SUFFIXES)(
    'are found as a vault opened without a cache finds them, for days that exist and days that do not (name suffix %j)',
    async (suffix) => {
      await fc.assert(
        fc.asyncProperty(vaultFiles(suffix), async ({ notes, existing, adds }) => {
          const files: Record<string, string> = {};
          notes.forEach((links, k) => {
            files[`insights/cites-${k}.md`] = `# Cites ${k}\n\nSaid on ${links.join(' and ')}.\n`;
          });
          for (const day of existing) {
            files[`episodes/daily/${day}${suffix}.md`] =
              `# ${day}\n\n## Heading\n\n- 08:00 earlier ^e1\n- 08:01 more ^e2\n`;
          }
          const format = suffix === '' ? 'YYYY-MM-DD' : `YYYY-MM-DD [${suffix.trim()}]`;
          const layout = { daily: { format } };
          const config = { config: { timezone: 'UTC', git: { autoCommit: false }, layout } };
          const cached = await makeVault(files, config);
          const plain = await makeVault(files, config);
          // Opened once to save its cache: the next open reads the saved link rows.
          await (await openVault({ path: cached })).close();
          const fromCache = await idsHandedOut(cached, adds, true);
          const fromNotes = await idsHandedOut(plain, adds, false);
          expect(fromCache).toEqual(fromNotes);
          for (const [k, day] of adds.entries()) {
            // A day that exists is cited by the links that resolve to it, and a link in other case
            // resolves as Obsidian folds it (`ας` is not `ΑΣ.md`'s `ασ.md`): there the ids must be
            // as without a cache (above), and the name-by-name count below holds for ASCII names.
            if (suffix !== '' && existing.includes(day)) continue;
            const n = Number(/^e(\d+)/.exec(fromCache[k] as string)?.[1]);
            expect(n, `${day}: ${fromCache[k]}`).toBeGreaterThan(
              citedIn(files, `${day}${suffix}`.normalize('NFC')),
            );
          }
          // Every add is in its day once.
          for (const [k, day] of adds.entries()) {
            // The day's file as the disk spells it (a note written by hand may be NFD).
            const wanted = `${day}${suffix}.md`.normalize('NFC');
            const dir = join(cached, 'episodes/daily');
            const file = (await readdir(dir)).find((name) => name.normalize('NFC') === wanted) ?? wanted;
            const text = await readFile(join(dir, file), 'utf8');
            expect(text.split(`entry ${k} `).length - 1, `entry ${k} in ${day}`).toBe(1);
          }
        }),
        { numRuns: 25 },
      );
    },
  );
});
