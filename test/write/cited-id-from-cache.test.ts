// The highest id other notes cite in a day is found from the link graph as the vault opened it:
// from the cache, the saved link rows give the places of the links to a day that exists, and the
// saved names of unresolved links say whether any may cite a day that does not (so that the notes
// holding them are decoded only then). Generated vaults cite days in every form a link takes; the
// ids a vault opened from its cache hands out must be those one opened without a cache hands out,
// and above every id cited.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const DAYS = ['2026-12-01', '2026-12-02', '2026-12-03'];

/** A link to a day as people write it: by name, by path, with `.md`, to an entry or not. */
const cite = fc
  .record({
    day: fc.constantFrom(...DAYS),
    form: fc.constantFrom('name', 'path', 'md', 'other-folder'),
    anchor: fc.oneof(
      fc.integer({ min: 1, max: 40 }).map((n) => `#^e${n}`),
      fc.constantFrom('', '#Heading', '#^x1'),
    ),
  })
  .map(({ day, form, anchor }) => {
    const target =
      form === 'name'
        ? day
        : form === 'path'
          ? `episodes/daily/${day}`
          : form === 'md'
            ? `${day}.md`
            : `elsewhere/${day}`;
    return `[[${target}${anchor}]]`;
  });

const vaultFiles = fc.record({
  notes: fc.array(fc.array(cite, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
  // Days that exist before the adds, each with entries of its own ids.
  existing: fc.subarray(DAYS),
  adds: fc.array(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 4 }),
});

/** The highest `^eN` the files cite in `day`, by its name or its path (what citedIn matches). */
function citedIn(files: Record<string, string>, day: string): number {
  let top = 0;
  for (const [path, text] of Object.entries(files)) {
    if (path === `episodes/daily/${day}.md`) continue;
    for (const [, target, n] of text.matchAll(/\[\[([^\]#|]*)#\^e(\d+)\]\]/g)) {
      const name = (target as string).toLowerCase().replace(/\.md$/, '');
      if (name === day || name === `episodes/daily/${day}`) top = Math.max(top, Number(n));
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
  it('are found as a vault opened without a cache finds them, for days that exist and days that do not', async () => {
    await fc.assert(
      fc.asyncProperty(vaultFiles, async ({ notes, existing, adds }) => {
        const files: Record<string, string> = {};
        notes.forEach((links, k) => {
          files[`insights/cites-${k}.md`] = `# Cites ${k}\n\nSaid on ${links.join(' and ')}.\n`;
        });
        for (const day of existing) {
          files[`episodes/daily/${day}.md`] =
            `# ${day}\n\n## Heading\n\n- 08:00 earlier ^e1\n- 08:01 more ^e2\n`;
        }
        const config = { config: { timezone: 'UTC', git: { autoCommit: false } } };
        const cached = await makeVault(files, config);
        const plain = await makeVault(files, config);
        // Opened once to save its cache: the next open reads the saved link rows.
        await (await openVault({ path: cached })).close();
        const fromCache = await idsHandedOut(cached, adds, true);
        const fromNotes = await idsHandedOut(plain, adds, false);
        expect(fromCache).toEqual(fromNotes);
        for (const [k, day] of adds.entries()) {
          const n = Number(/^e(\d+)/.exec(fromCache[k] as string)?.[1]);
          expect(n, `${day}: ${fromCache[k]}`).toBeGreaterThan(citedIn(files, day));
        }
        // Every add is in its day once.
        for (const [k, day] of adds.entries()) {
          const text = await readFile(join(cached, `episodes/daily/${day}.md`), 'utf8');
          expect(text.split(`entry ${k} `).length - 1, `entry ${k} in ${day}`).toBe(1);
        }
      }),
      { numRuns: 25 },
    );
  });
});
