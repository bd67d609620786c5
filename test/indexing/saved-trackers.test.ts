import { afterEach, describe, expect, it } from 'vitest';
import type { Note } from '../../src/core/types.js';
import {
  DECLARED_TRACKERS,
  formatTrackers,
  parseTracker,
  parseTrackers,
  type SavedTrackers,
} from '../../src/indexing/trackers.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import '../../src/recall/choose-range.js';
import '../../src/recall/speaker-prior.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

/** Days of entries by a few speakers, and a profile note. */
function days(seed: number): Record<string, string> {
  const random = seeded(seed);
  const speakers = ['Rain', '小满', 'Mei', 'Jo'];
  const files: Record<string, string> = { 'profile/people/Mei.md': '# Mei\n\nA friend.\n' };
  for (let d = 1; d <= 6; d++) {
    const date = `2026-11-0${d}`;
    const lines = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, k) => {
      const who = speakers[Math.floor(random() * speakers.length)] as string;
      return `- 0${k}:1${k} **${who}:** words ${Math.floor(random() * 100)} ^e${k + 1}`;
    });
    files[`episodes/daily/${date}.md`] = `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`;
  }
  return files;
}

/** A declared tally's keys and counts, sorted; made with its own function when not restored. */
const tallyOf = (index: VaultIndex, name: string) =>
  [
    ...index.tally(name, (DECLARED_TRACKERS.get(name) as { keysOf: (note: Note) => Iterable<string> }).keysOf)
      .keys,
  ].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

describe('the saved trackers, one line each, parsed when asked for', () => {
  it('read back as written, names and JSON alike, whatever they hold', () => {
    const random = seeded(5);
    for (let round = 0; round < 50; round++) {
      const trackers: SavedTrackers = new Map();
      for (let t = 0; t < Math.floor(random() * 5); t++) {
        const paths = Array.from(
          { length: Math.floor(random() * 4) },
          (_, k) => `a\t"b\n${k}\\${random()}.md`,
        );
        trackers.set(`t${t}:${round}`, JSON.stringify({ kind: 'facet', paths }));
      }
      const back = parseTrackers(formatTrackers(trackers));
      expect(back).toEqual(trackers);
      for (const [name, json] of back ?? [])
        expect(parseTracker(json)).toEqual(JSON.parse(trackers.get(name) as string));
    }
  });

  it('refuse a segment that is not lines of a name, a tab and JSON, and a tracker of another shape', () => {
    for (const bad of [
      '{"speakers":{"kind":"facet","paths":[]}}',
      'speakers',
      '\t{}\n',
      'a\t{}\na\t{}\n',
      'a\t{}',
    ])
      expect(parseTrackers(bad), bad).toBeUndefined();
    expect(parseTrackers('')).toEqual(new Map());
    for (const bad of [
      '{',
      '[]',
      '{"kind":"facet","paths":[1]}',
      '{"kind":"tally","keys":[["a","1"]],"byPath":[]}',
      'null',
    ])
      expect(parseTracker(bad), bad).toBeUndefined();
  });

  it('restore each tracker as saved, and make one whose line is damaged from the notes instead', async () => {
    for (const seed of [1, 2, 3]) {
      const built = await indexOf(await makeVault(days(seed), { config: { timezone: 'UTC' } }));
      const saved = built.saveTrackers();
      expect([...saved.keys()]).toEqual(expect.arrayContaining(['speakers', 'entry-days']));
      const expected = { speakers: tallyOf(built, 'speakers'), days: tallyOf(built, 'entry-days') };
      expect(expected.speakers.length).toBeGreaterThan(0);

      const restored = VaultIndex.restore(built.notes, built.text, built.graph, new Map(saved));
      expect(tallyOf(restored, 'speakers')).toEqual(expected.speakers);
      expect(tallyOf(restored, 'entry-days')).toEqual(expected.days);

      for (const damage of ['{"kind":"tally"', '{"kind":"facet","paths":[]}', 'null']) {
        const damaged = new Map(saved).set('speakers', damage);
        const index = VaultIndex.restore(built.notes, built.text, built.graph, damaged);
        expect(tallyOf(index, 'speakers')).toEqual(expected.speakers);
        expect(tallyOf(index, 'entry-days')).toEqual(expected.days);
        // A save writes the tracker made, never the damaged line.
        expect(parseTracker(index.saveTrackers().get('speakers') as string)).toEqual(
          parseTracker(saved.get('speakers') as string),
        );
      }
    }
  });
});
