// A recall that hits one entry of a large day opened from the cache (issue 33) decodes that entry
// and the entries around it (graph-neighbours' adjacent entries, found from the note's outline), not
// every entry of the day: a day of more than 64 KiB of records is read a section at a time.
import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import { savedSectionsDecoded } from '../../src/indexing/saved-note.js';
import type { VaultIndex } from '../../src/indexing/vault-index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const DAY = 'episodes/daily/2026-11-20.md';
const WORDS = ['saxophone', 'lighthouse', 'porcelain', 'avalanche', 'marmalade'];
// 60 entries of about 1.2 KiB: past the 64 KiB from which a saved note is decoded a record at a time.
const entries = Array.from({ length: 60 }, (_, i) => {
  const word = i === 37 ? WORDS[0] : WORDS[1 + (i % 4)];
  return `- 10:${String(i).padStart(2, '0')} **Rain:** ${word} walk ${i} ${'and the quay '.repeat(90)}^w${i}\n`;
});
// A heading among the entries (before `^w35`) is passed over, as among the note's sections.
entries.splice(35, 0, '\n## Afternoon\n\nThe rain stopped.\n\n');
const TEXT = `# 2026-11-20\n\n${entries.join('')}`;
const NOW = new Date('2026-11-21T10:00:00Z');

function indexOf(vault: Vault): VaultIndex {
  return (vault as unknown as { live: { index: VaultIndex } }).live.index;
}

describe('a hit on one entry of a large day opened from the cache', () => {
  it('decodes that entry and its neighbours, not the whole day', async () => {
    const root = await makeVault(
      { [DAY]: TEXT, 'insights/other.md': '# Other\n\nNothing here.\n' },
      { config: { timezone: 'UTC' } },
    );
    const built = await openVault({ path: root });
    const whole = built.note(DAY);
    await built.close();
    expect(whole?.sections.length).toBeGreaterThan(60);

    const vault = await openVault({ path: root });
    const index = indexOf(vault);
    expect(typeof index.notes.entry(DAY)).toBe('number');
    const { hits } = vault.recall('saxophone', { k: 5, now: NOW });
    expect(hits[0]?.anchor).toBe('^w37');
    const day = index.notes.get(DAY);
    if (!day) throw new Error('the day is gone');
    // The hit, three entries on each side and the heading read between them (`^w34` … `^w40`): with
    // graph-neighbours walking `note.sections`, all 61.
    expect(savedSectionsDecoded(day)).toBe(8);

    // The same neighbours, nearest first, as the whole note's sections give them.
    const hit = index.section(`${DAY}#^w37`);
    if (!hit) throw new Error('no hit');
    const around = index.entriesAround(hit.note, hit.section, 3);
    const anchors = (list: Array<{ anchor: string }>) => list.map((s) => s.anchor);
    expect(anchors(around.before)).toEqual(['^w36', '^w35', '^w34']);
    expect(anchors(around.after)).toEqual(['^w38', '^w39', '^w40']);
    expect(savedSectionsDecoded(day)).toBe(8);
    const plain = whole as NonNullable<typeof whole>;
    const at = plain.sections.findIndex((s) => s.anchor === '^w37');
    expect(index.entriesAround(plain, plain.sections[at] as never, 3)).toEqual(around);
    // Near the start of the day fewer entries come before.
    const early = index.section(`${DAY}#^w1`);
    if (!early) throw new Error('no entry');
    expect(anchors(index.entriesAround(early.note, early.section, 3).before)).toEqual(['^w0']);
    await vault.close();
  });
});
