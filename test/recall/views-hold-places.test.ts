import { afterEach, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import type { Note } from '../../src/core/types.js';
import type { NoteTable } from '../../src/indexing/note-table.js';
import { collectUntil } from '../helpers/collect.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { seeded } from '../helpers/seeded.js';

afterEach(cleanupVaults);

const NOW = '2026-11-30T20:00:00Z';
const PEOPLE = ['Anna', 'Bo', 'Chen'];
const WORDS = [
  'pottery',
  'rain',
  'dumplings',
  'marathon',
  'violin',
  'garden',
  'train',
  'movie',
  'coffee',
  'museum',
];

/**
 * A month of days: each with a few entries naming people and topics by wiki link, the people's
 * profile notes (linked from every day that names them) and insights citing days.
 */
function monthOfDays(seed: number): Record<string, string> {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const files: Record<string, string> = {};
  for (let day = 1; day <= 30; day++) {
    const date = `2026-11-${String(day).padStart(2, '0')}`;
    const lines = Array.from({ length: 2 + Math.floor(random() * 4) }, (_, k) => {
      const time = `${String(8 + k * 2).padStart(2, '0')}:${String(Math.floor(random() * 60)).padStart(2, '0')}`;
      return `- ${time} **Rain:** ${pick(WORDS)} with [[${pick(PEOPLE)}]], then ${pick(WORDS)} ^e${k + 1}`;
    });
    files[`episodes/daily/${date}.md`] =
      `---\ndate: ${date}\ntype: episode\n---\n# ${date}\n\n${lines.join('\n')}\n`;
  }
  for (const person of PEOPLE) files[`profile/people/${person}.md`] = `# ${person}\n\nA friend of Rain's.\n`;
  for (let k = 0; k < 6; k++) {
    const day = `2026-11-${String(1 + Math.floor(random() * 30)).padStart(2, '0')}`;
    files[`insights/i${k}.md`] = `# Insight ${k}\n\nRain likes ${pick(WORDS)} ([[${day}#^e1]]).\n`;
  }
  return files;
}

function notesOf(vault: Vault): NoteTable {
  return (vault as unknown as { live: { index: { notes: NoteTable } } }).live.index.notes;
}

/** What a day of chat turns asks: words, people (their backlinks), dates, and a compile per turn. */
function turns(vault: Vault): string[] {
  const out: string[] = [];
  for (const query of ['Anna', 'pottery with Bo', 'what did I do last week', 'yesterday', 'Chen coffee']) {
    const { hits } = vault.recall(query, { now: NOW, k: 8 });
    out.push(JSON.stringify(hits.map((hit) => [hit.id, hit.score])));
    out.push(vault.compile({ message: query, now: NOW, budget: 600 }).markdown);
  }
  return out;
}

describe('the views recall and compile keep between turns hold places, not notes', () => {
  it('leave decoded notes to the bound of limits.decodedNotesMiB, and answer alike under any bound', async () => {
    for (const seed of [1, 2, 3]) {
      const root = await makeVault(monthOfDays(seed), { config: { timezone: 'UTC' } });
      // Built, then opened again from the cache: every note a saved slot, decoded when read.
      await (await openVault({ path: root })).close();
      const roomy = await openVault({ path: root });
      const expected = turns(roomy);
      await roomy.close();

      const vault = await openVault({ path: root });
      const notes = notesOf(vault);
      // One byte: no decoded note is kept beside the one read last.
      notes.decodedBytes = 1;
      const decoded: Array<WeakRef<Note>> = [];
      const get = notes.get.bind(notes);
      notes.get = (path: string) => {
        const note = get(path);
        if (note) decoded.push(new WeakRef(note));
        return note;
      };
      expect(turns(vault)).toEqual(expected);
      // The turns above read many notes (each episode note for the entries by date, each day that
      // links a person); a view that held them would keep them all.
      const distinct = new Set(decoded.map((ref) => ref.deref()).filter((note) => note !== undefined));
      expect(distinct.size).toBeGreaterThan(20);
      distinct.clear();
      // The two generations of the table's cache, and the profile notes compile keeps.
      const alive = () =>
        new Set(decoded.map((ref) => ref.deref()?.path).filter((path) => path !== undefined));
      await collectUntil(() => alive().size <= 4);
      expect(alive().size).toBeLessThanOrEqual(4);
      await vault.close();
    }
  });
});
