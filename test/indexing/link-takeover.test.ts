// A new note whose name unresolved links name takes them over in the graph opened from the cache,
// without making the whole graph from every note; a new note of a name another file has still
// makes it. Generated vaults (names linked before their notes exist, in other case, with headings,
// aliases and folders in the link) are checked after every step against a graph made afresh.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';
import { expectSameAsRebuilt, graphOf } from '../helpers/graph-as-rebuilt.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const NAMES = ['Later', 'Mochi', 'Shanghai', 'tea time', '杭州', 'Ünïcode', '2026-11-29'];
const FOLDERS = ['insights/', 'profile/people/', 'episodes/daily/', ''];

/** A link to a name as people write it: other case, a heading, an alias, the folder. */
const link = fc
  .record({
    name: fc.constantFrom(...NAMES),
    upper: fc.boolean(),
    heading: fc.boolean(),
    alias: fc.boolean(),
    folder: fc.option(fc.constantFrom(...FOLDERS), { nil: undefined }),
  })
  .map(({ name, upper, heading, alias, folder }) => {
    const target = `${folder ?? ''}${upper ? name.toUpperCase() : name}`;
    return `[[${target}${heading ? '#Part' : ''}${alias ? '|that' : ''}]]`;
  });

const note = fc
  .array(link, { maxLength: 4 })
  .map((links) => `# Note\n\nText ${links.join(' and ')}.\n\n## Part\n\nMore.\n`);

const step = fc.record({
  kind: fc.constantFrom('new', 'new', 'edit'),
  name: fc.constantFrom(...NAMES),
  folder: fc.constantFrom(...FOLDERS),
  text: note,
});

describe('a new note takes over the links that named it', () => {
  it('answers as a graph made afresh, and makes the whole graph only for a name another file has', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.constantFrom(...FOLDERS), fc.constantFrom(...NAMES)), {
          minLength: 1,
          maxLength: 4,
          selector: ([, name]) => name,
        }),
        fc.array(note, { minLength: 4, maxLength: 4 }),
        fc.array(step, { minLength: 1, maxLength: 5 }),
        async (existing, texts, steps) => {
          const files: Record<string, string> = {};
          existing.forEach(([folder, name], k) => {
            files[`${folder}${name}.md`] = texts[k % texts.length] as string;
          });
          files['insights/hub.md'] = texts.join('\n');
          const root = await makeVault(files, { config: { timezone: 'UTC', git: { autoCommit: false } } });
          await (await openVault({ path: root })).close();
          const vault = await openVault({ path: root });
          try {
            expectSameAsRebuilt(vault, 'opened');
            for (const [k, s] of steps.entries()) {
              const taken = new Set(vault.paths().map((p) => p.replace(/^.*\//, '').toLowerCase()));
              const path =
                s.kind === 'edit'
                  ? (vault.paths()[k % vault.paths().length] as string)
                  : `${s.folder}${s.name}.md`;
              if (s.kind === 'new' && vault.paths().includes(path)) continue;
              const sharesName = s.kind === 'new' && taken.has(`${s.name}.md`.toLowerCase());
              const graph = graphOf(vault);
              const wasWhole = !(graph instanceof SavedLinkGraph) || graph.materialized;
              await mkdir(dirname(join(root, path)), { recursive: true });
              await writeFile(join(root, path), s.text);
              await vault.refreshPaths([path]);
              expectSameAsRebuilt(vault, `step ${k} (${s.kind} ${path})`);
              const after = graphOf(vault);
              const whole = !(after instanceof SavedLinkGraph) || after.materialized;
              // Only a name another file has (or what came before) makes the whole graph.
              if (!wasWhole && !sharesName) expect(whole, `step ${k}: ${path}`).toBe(false);
            }
          } finally {
            await vault.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
