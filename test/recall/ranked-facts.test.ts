// Recall ranks a text hit by the facts the index stores with its section (vault/section-facts.ts)
// and decodes only the notes it shows or follows links from (issue 33). Two promises follow: the
// stored facts are the facts of the note as it is now, after any edit that moves one of them, and a
// recall over a vault of many matches reads few of its notes.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { readStoredFacts, sectionFacts, storedFacts } from '../../src/vault/section-facts.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { notesReadBy } from '../helpers/notes-read.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-12-01T09:00:00+08:00');

function indexOf(vault: Vault): VaultIndex {
  return (vault as unknown as { live: { index: VaultIndex } }).live.index;
}

const FILES: Record<string, string> = {
  'profile/coffee.md':
    '---\nimportance: 0.5\nupdated: 2026-10-01 09:00\n---\n# Coffee\n\nI drink coffee with oat milk.\n\n## Beans\n\nCoffee beans from Yunnan.\n',
  'insights/coffee-habit.md':
    '---\nstatus: active\ncreated: 2026-09-01\n---\n# Coffee habit\n\nCoffee every morning before work.\n',
  'episodes/daily/2026-11-20.md':
    '---\ndate: 2026-11-20\n---\n# 2026-11-20\n\n- 08:10 **Rain:** Coffee at the corner cafe. ^e1\n- 09:00 **Mel:** Coffee again? [importance:: 0.8] ^e2\n',
  'episodes/daily/2026-11-21.md': '# 2026-11-21\n\n## Morning\n\nCoffee on the balcony.\n',
  'episodes/monthly/2026-11.md': '---\ntype: rollup\nperiod: 2026-11\n---\n# 2026-11\n\nCoffee most days.\n',
};

/** Every kind of edit that moves a stored fact and nothing the text index reads as words. */
const EDITS: Array<[string, string, (text: string) => string]> = [
  [
    'a note superseded',
    'profile/coffee.md',
    (t) => t.replace('importance: 0.5', 'importance: 0.5\nstatus: superseded'),
  ],
  ['a note archived', 'insights/coffee-habit.md', (t) => t.replace('status: active', 'status: Archived')],
  ['a note active again', 'insights/coffee-habit.md', (t) => t.replace('status: active', 'status: ACTIVE')],
  ["a note's importance", 'profile/coffee.md', (t) => t.replace('importance: 0.5', 'importance: 0.9')],
  ["a note's importance emptied", 'profile/coffee.md', (t) => t.replace('importance: 0.5', "importance: ''")],
  ["a note's importance removed", 'profile/coffee.md', (t) => t.replace('importance: 0.5\n', '')],
  [
    "a note's updated time",
    'profile/coffee.md',
    (t) => t.replace('2026-10-01 09:00', '2026-11-30T08:00:00Z'),
  ],
  [
    "a note's created time, for an updated",
    'insights/coffee-habit.md',
    (t) => t.replace('created:', 'updated:'),
  ],
  ["a note's date", 'insights/coffee-habit.md', (t) => t.replace('created: 2026-09-01', 'date: 2026-11-29')],
  [
    "a rollup's period",
    'episodes/monthly/2026-11.md',
    (t) => t.replace('period: 2026-11', 'period: 2026-W47'),
  ],
  ['a rollup no more', 'episodes/monthly/2026-11.md', (t) => t.replace('type: rollup\n', '')],
  [
    "an entry's importance",
    'episodes/daily/2026-11-20.md',
    (t) => t.replace('[importance:: 0.8]', '[importance:: 0.2]'),
  ],
  ["an entry's time", 'episodes/daily/2026-11-20.md', (t) => t.replace('08:10', '21:10')],
  ["an entry's speaker", 'episodes/daily/2026-11-20.md', (t) => t.replace('**Rain:**', '**Mel:**')],
  ['a journal day made a rollup', 'episodes/daily/2026-11-21.md', (t) => `---\ntype: rollup\n---\n${t}`],
];

type Asked = Parameters<Vault['recall']>[1];
const ASKED: Asked[] = [
  { now: NOW },
  { now: NOW, all: true },
  { now: NOW, range: { from: '2026-11-01', to: '2026-11-30' } },
  { now: NOW, range: { from: '2026-11-20', to: '2026-11-20' }, rangeMode: 'prefer' },
  { now: NOW, layers: ['episodes'] },
];

function answers(vault: Vault): unknown[] {
  return ASKED.flatMap((options) =>
    ['coffee', 'coffee Mel', 'what coffee now'].map(
      (query) => vault.recall(query, { k: 20, ...options }).hits,
    ),
  );
}

describe('the facts recall ranks a text hit by', () => {
  it('are the facts of the note as it is after every edit that moves one, read from the cache or not', async () => {
    for (const [what, path, edit] of EDITS) {
      const root = await makeVault(FILES);
      // Built and saved, then the edit, then opened from the cache: the edited note is read again
      // and its sections kept or replaced in the text index as unchanged or changed.
      await (await openVault({ path: root })).close();
      const edited = edit(FILES[path] as string);
      expect(edited, what).not.toBe(FILES[path]);
      await writeFile(join(root, path), edited);
      const reopened = await openVault({ path: root });
      const fresh = await openVault({ path: await makeVault({ ...FILES, [path]: edited }), cache: false });
      expect([what, answers(reopened)]).toEqual([what, answers(fresh)]);
      // And a server that watched the edit happen: the same change applied to an open index.
      const before = await makeVault(FILES);
      const live = await openVault({ path: before, cache: false });
      await live.recall('coffee', { now: NOW });
      await writeFile(join(before, path), edited);
      await live.refresh();
      expect([what, answers(live)]).toEqual([what, answers(fresh)]);
      await Promise.all([reopened.close(), fresh.close(), live.close()]);
    }
  });

  it('read back from the index as the note gives them, for any note', () => {
    const value = fc.constantFrom(
      '0.9',
      '1.5',
      '-1',
      "''",
      'null',
      'abc',
      '2026-11-30',
      '2026-11-30T08:00:00+08:00',
    );
    const frontmatter = fc.record(
      {
        status: fc.constantFrom('active', 'superseded', 'ARCHIVED', 'draft'),
        importance: value,
        updated: value,
        created: value,
        date: value,
        type: fc.constantFrom('rollup', 'note'),
        period: fc.constantFrom('2026-11', '2026-W47', '2026-Q4', '2026', 'soon'),
      },
      { requiredKeys: [] },
    );
    const line = fc.constantFrom(
      '- 08:10 **Rain:** Coffee at the corner cafe. ^e1',
      '- 21:00 **梅:** 又喝咖啡了 [importance:: 0.7] ^e2',
      '- (event) Moved to Suzhou. ^e3',
      '## Plan',
      '- [ ] ',
      '- [x] call Mel',
      'A paragraph of the day.',
      '',
    );
    const folder = fc.constantFrom(
      'persona',
      'profile',
      'insights',
      'episodes/daily',
      'episodes/monthly',
      'archive',
      'notes',
    );
    fc.assert(
      fc.property(folder, frontmatter, fc.array(line, { maxLength: 8 }), (dir, fm, lines) => {
        const head = Object.entries(fm).map(([key, v]) => `${key}: ${v}`);
        const text = `${head.length > 0 ? `---\n${head.join('\n')}\n---\n` : ''}# Day\n\n${lines.join('\n')}\n`;
        const note = parseNote(`${dir}/2026-11-20.md`, text);
        for (const section of note.sections) {
          const stored = readStoredFacts(note.layer, section.date, storedFacts(note, section));
          expect(stored).toEqual(sectionFacts(note, section));
        }
      }),
    );
  });
});

describe('a hit whose section its note does not have', () => {
  it('is left out, as when recall decoded every hit, by every step that reads a section', async () => {
    // Templates (the template check reads a short section), a strong hit (its links are followed),
    // a question about now (restatements read entries' words), embeddings off.
    const root = await makeVault({
      ...FILES,
      '.obsidian/templates.json': '{"folder":"Templates"}',
      'Templates/Day.md': '# {{title}}\n\n## Coffee habit\n\nCoffee every morning.\n',
    });
    const vault = await openVault({ path: root, cache: false });
    const index = indexOf(vault);
    expect(index.templates?.size).toBeGreaterThan(0);
    // The index and the notes disagree about these sections (what a bug would leave).
    const gone = new Set(['insights/coffee-habit.md#Coffee habit', 'episodes/daily/2026-11-20.md#^e2']);
    const section = index.section.bind(index);
    vi.spyOn(index, 'section').mockImplementation((id: string) => (gone.has(id) ? undefined : section(id)));
    for (const query of ['coffee', 'what coffee do I drink now', 'Mel coffee again']) {
      const ids = vault.recall(query, { k: 20, now: NOW }).hits.map((hit) => hit.id);
      expect(ids.length, query).toBeGreaterThan(0);
      expect(
        ids.filter((id) => gone.has(id)),
        query,
      ).toEqual([]);
    }
    await vault.close();
  });
});

describe('a recall over many matches', () => {
  it('decodes the notes it shows and those whose links it follows, not every hit', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++)
      files[`profile/people/p${i}.md`] =
        `# Person ${i}\n\nLikes coffee${i % 3 === 0 ? ' and coffee beans' : ''}; note ${i}.\n`;
    const root = await makeVault(files);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const { result, read } = notesReadBy(vault, () => vault.recall('coffee', { k: 8, now: NOW }));
    const { hits } = result;
    expect(hits).toHaveLength(8);
    // 150 notes match; the 20 strongest are followed for their links, the 8 shown are among them.
    expect(read.size).toBeGreaterThanOrEqual(8);
    expect(read.size).toBeLessThanOrEqual(20);
    await vault.close();
  });
});
