// Differential: a day note indexed as appends (the live index reading only what a write added)
// answers every search as one whose every version was parsed whole, byte for byte.

import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refreshPaths } from '../../src/indexing/refresh-index.js';
import { parseTracker } from '../../src/indexing/trackers.js';
// Recall's declared trackers (entry days, speakers), which a save keeps.
import '../../src/recall/choose-range.js';
import '../../src/recall/speaker-prior.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { isAppendable } from '../../src/vault/markdown/append-note.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { hashText } from '../../src/vault/write-note.js';
import { appendLine } from '../../src/write/episode-entry.js';
import { appended, dayNote, random, WORDS } from '../helpers/day-notes.js';

const PATH = 'episodes/daily/2026-11-30.md';
const OTHER = 'profile/people/Mia.md';
const QUERIES = [...WORDS, 'pottery quokka', '杭州 吃饭', 'Mia Lin said', 'trip interrupted', '家'];

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mem-append-index-'));
  mkdirSync(join(root, 'episodes/daily'), { recursive: true });
  mkdirSync(join(root, 'profile/people'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The note at PATH parsed whole and upserted, as an index that never reads an append alone. */
async function upsertWhole(index: VaultIndex, path: string, text: string): Promise<void> {
  const info = await stat(join(root, path));
  index.upsert(parseNote(path, text, { size: info.size, mtimeMs: info.mtimeMs }, hashText(text)));
}

const answers = (index: VaultIndex) =>
  JSON.stringify(QUERIES.map((q) => index.text.search(q).map((hit) => [hit.id, hit.score, hit.terms])));

/** The declared trackers (entry days, speakers: recall's), each key's count and each note's keys. */
const trackers = (index: VaultIndex) =>
  JSON.stringify(
    [...index.saveTrackers()].map(([name, json]) => {
      const saved = parseTracker(json);
      if (!saved) throw new Error(`tracker ${name} does not parse`);
      return saved.kind === 'tally'
        ? [name, [...saved.keys].sort(), [...saved.byPath].sort()]
        : [name, [...saved.paths].sort()];
    }),
  );

describe('a day note indexed as appends', () => {
  it('answers as the note parsed whole at every version', async () => {
    let incremental = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const r = random(1000 + seed);
      const live = new VaultIndex();
      const whole = new VaultIndex();
      const other = `---\naliases: [Mia]\n---\n# Mia\n\npottery and tea in Hangzhou ${seed}\n`;
      await writeFile(join(root, OTHER), other);
      const day = dayNote(r);
      let text = day.text;
      await writeFile(join(root, PATH), text);
      await refreshPaths(root, live, [OTHER, PATH]);
      await upsertWhole(whole, OTHER, other);
      await upsertWhole(whole, PATH, text);
      for (let step = 1; step <= 5; step++) {
        // Now and then a hand edit before the end, which the prefix's hash must tell.
        if (r.chance(0.1)) text = text.replace(/e/, 'E');
        text = appendLine(text, appended(r, day).replace(/\n$/, ''));
        if (isAppendable(live.notes.get(PATH)!)) incremental++;
        await writeFile(join(root, PATH), text);
        await refreshPaths(root, live, [PATH]);
        await upsertWhole(whole, PATH, text);
        const where = `seed ${seed} step ${step}:\n${text}`;
        expect(JSON.stringify(live.notes.get(PATH)), where).toBe(JSON.stringify(whole.notes.get(PATH)));
        expect(answers(live), where).toBe(answers(whole));
      }
    }
    expect(incremental).toBeGreaterThan(20);
  });

  it('answers as an index made afresh while every write was read as an append', async () => {
    let compared = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const r = random(2000 + seed);
      const live = new VaultIndex();
      const other = `# Mia\n\npottery and tea in Hangzhou ${seed}\n`;
      await writeFile(join(root, OTHER), other);
      const day = dayNote(r);
      let text = day.text;
      await writeFile(join(root, PATH), text);
      await refreshPaths(root, live, [OTHER, PATH]);
      // The trackers (entry days, speakers) exist before the appends, so the appends update them.
      live.saveTrackers();
      for (let step = 1; step <= 5; step++) {
        const before = live.notes.get(PATH)!;
        // Without `#`: a new tag is a change of the whole note (below).
        text = appendLine(text, appended(r, day).replace(/\n$/, '').replaceAll('#', ''));
        await writeFile(join(root, PATH), text);
        await refreshPaths(root, live, [PATH]);
        // Read as an append: the sections before are the very objects (a whole parse makes new ones).
        const after = live.notes.get(PATH)!;
        if (!before.sections.some((section, k) => section === after.sections[k])) break;
        // A new tag changes every document of the note: all are replaced (as before appends were
        // read alone), and the discarded ones weigh in a score's last bits until a vacuum.
        if (after.tags.join(' ') !== before.tags.join(' ')) break;
        const fresh = new VaultIndex();
        await upsertWhole(fresh, OTHER, other);
        await upsertWhole(fresh, PATH, text);
        compared++;
        expect(answers(live), `seed ${seed} step ${step}:\n${text}`).toBe(answers(fresh));
        expect(trackers(live)).toBe(trackers(fresh));
      }
    }
    expect(compared).toBeGreaterThan(40);
  });
});
