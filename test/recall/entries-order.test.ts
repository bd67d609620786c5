import { afterEach, describe, expect, it } from 'vitest';
import type { Note, Section } from '../../src/core/types.js';
import { entriesNewestFirst } from '../../src/recall/episode-entries.js';
import { isDayEntry } from '../../src/vault/section-facts.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order entries had when the view held notes: by date, time, path and start, newest first, ties in the notes' order. */
function reference(notes: Note[]): string[] {
  const entries: Array<{ note: Note; section: Section }> = [];
  for (const note of notes)
    for (const section of note.sections) if (isDayEntry(note, section)) entries.push({ note, section });
  const byWhen = (a: (typeof entries)[0], b: (typeof entries)[0]) =>
    compare(a.section.date ?? '', b.section.date ?? '') ||
    compare(a.section.time ?? '', b.section.time ?? '') ||
    compare(a.note.path, b.note.path) ||
    a.section.start - b.section.start;
  return entries.sort((a, b) => byWhen(b, a)).map(({ note, section }) => `${note.path} ${section.id}`);
}

/**
 * Days of mem's entries and a person's own journal, some entries untimed (a block and the preamble
 * starting at one place), in folders whose names hold `#`, spaces and characters below and above it.
 */
function days(seed: number): Record<string, string> {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const folders = [
    'episodes/daily',
    'episodes/daily/a#b',
    'episodes/daily/a b',
    'episodes/daily/a!',
    'episodes/daily/a~',
  ];
  const files: Record<string, string> = {};
  for (let n = 0; n < 12; n++) {
    const date = `2026-11-${String(1 + Math.floor(random() * 4)).padStart(2, '0')}`;
    const lines: string[] = [];
    for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
      const time = random() < 0.3 ? '' : `${pick(['08:00', '09:30', '09:30', '21:15'])} `;
      lines.push(
        random() < 0.5
          ? `- ${time}**Rain:** ${pick(['tea', 'rain', '火锅'])} ^e${k + 1}`
          : `- ${time}walked the ${pick(['dog', 'river'])}`,
      );
    }
    if (random() < 0.5) lines.push('', '## Evening', '', `- [ ] call ${pick(['Mei', 'Jo'])}`);
    const folder = pick(folders);
    files[`${folder}/${date}${n % 3 === 0 ? '' : ` ${n}`}.md`] =
      `---\ndate: ${date}\n---\n${lines.join('\n')}\n`;
  }
  return files;
}

describe('the episode entries newest first', () => {
  it('come in the order the notes-holding view gave, ties and paths with # included', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const index = await indexOf(await makeVault(days(seed), { config: { timezone: 'UTC' } }));
      const episodes = [...index.notes.values()].filter((note) => note.layer === 'episodes');
      const found = [...entriesNewestFirst(index)].map(({ note, section }) => `${note.path} ${section.id}`);
      expect(found.length).toBeGreaterThan(10);
      expect(found).toEqual(reference(episodes));
      // A range is the slice of its days, each entry found in its own note.
      const ranged = [...entriesNewestFirst(index, { from: '2026-11-02', to: '2026-11-03' })];
      expect(ranged.map(({ note, section }) => `${note.path} ${section.id}`)).toEqual(
        reference(episodes).filter((_, k) => {
          const date = [...entriesNewestFirst(index)][k]?.section.date ?? '';
          return date >= '2026-11-02' && date <= '2026-11-03';
        }),
      );
      for (const { note, section } of ranged) expect(section.id.startsWith(`${note.path}#`)).toBe(true);
    }
  });
});
