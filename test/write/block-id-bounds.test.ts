// Block ids stay unique and bounded whatever a message cites: a citation of any length (in a link,
// in plain text, in code, `^e1e400`) on any day never moves a day's counter past MAX_CITED_ID, so no
// two entries of a day share an id and no id has more than nine digits. Also for a note that holds
// an id by hand near the bound, and for the day merge's renumbering.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { DayDraft } from '../../src/write/day-draft.js';
import { freshBlockIds, MAX_BLOCK_ID, MAX_CITED_ID, nextBlockId } from '../../src/write/episode-entry.js';
import { mergeDay } from '../../src/write/sync/merge-day.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const DAYS = ['2026-12-01', '2026-12-02'];
const dayPath = (day: string) => `episodes/daily/${day}.md`;

/** Any run of digits: short, near the bounds, past Number.MAX_SAFE_INTEGER, hundreds long. */
const digits = fc.oneof(
  fc.integer({ min: 1, max: 50 }).map(String),
  fc.constantFrom(
    String(MAX_CITED_ID),
    String(MAX_CITED_ID + 1),
    String(MAX_BLOCK_ID - 1),
    String(MAX_BLOCK_ID),
    String(MAX_BLOCK_ID + 1),
    String(Number.MAX_SAFE_INTEGER),
    '9'.repeat(20),
    '0001',
    '1e400',
  ),
  fc.stringMatching(/^[1-9][0-9]{0,40}$/),
);

/** A citation of `day`'s entry `eN` in each form a message may hold it. */
const citation = fc
  .record({ day: fc.constantFrom(...DAYS), n: digits, form: fc.integer({ min: 0, max: 6 }) })
  .map(({ day, n, form }) => {
    const id = `^e${n}`;
    return [
      `as I said in [[${day}#${id}]]`,
      `see [[${dayPath(day).slice(0, -3)}#${id}|that]] again`,
      `plain ${id}`,
      `in code \`[[${day}#${id}]]\``,
      `\`\`\`\n[[${day}#${id}]]\n\`\`\``,
      `${id}`,
      `[[#${id}]] and [[${day}#${id}]] ${id}`,
    ][form]!;
  });

const ids = (text: string) => [...text.matchAll(/(?<=^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$/gm)].map((m) => m[1]!);

describe('block ids from any citation', () => {
  it('stay distinct in every day and at most nine digits, whatever the messages cite', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ day: fc.constantFrom(...DAYS), cites: citation }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (messages) => {
          const root = await makeVault({}, { config: { timezone: 'UTC' } });
          const vault = await openVault({ path: root, cache: false });
          try {
            const given: string[] = [];
            for (const [k, m] of messages.entries()) {
              const at = new Date(`${m.day}T09:${String(k).padStart(2, '0')}:00Z`);
              given.push((await vault.remember({ text: m.cites, at, commit: false })).blockId);
              // A later entry of each day: after the citation is indexed.
              for (const day of DAYS) {
                const later = new Date(`${day}T10:${String(k).padStart(2, '0')}:00Z`);
                given.push((await vault.remember({ text: `later ${k}`, at: later, commit: false })).blockId);
              }
            }
            for (const id of given) expect(id).toMatch(/^e[1-9]\d{0,8}$/);
            for (const day of DAYS) {
              const text = await readFile(join(root, dayPath(day)), 'utf8');
              const inNote = ids(text);
              expect(new Set(inNote).size, text).toBe(inNote.length);
              // A cited id moves the counter no further than MAX_CITED_ID.
              for (const id of inNote) expect(Number(id.slice(1))).toBeLessThanOrEqual(MAX_CITED_ID + 100);
            }
          } finally {
            await vault.close();
          }
        },
      ),
      // The reported case: a message citing the other day's ^e999999999.
      { numRuns: 30, examples: [[[{ day: DAYS[0]!, cites: `[[${DAYS[1]}#^e${MAX_BLOCK_ID}]]` }]]] },
    );
  }, 240_000);

  it('are new to the note even when it holds ids of any size by hand', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            digits,
            fc.integer({ min: MAX_BLOCK_ID - 1_000_010, max: MAX_BLOCK_ID - 999_990 }).map(String),
          ),
          { maxLength: 8 },
        ),
        fc.integer({ min: 0, max: MAX_BLOCK_ID + 5 }),
        fc.integer({ min: 1, max: 20 }),
        (held, floor, count) => {
          const note = held.map((n, i) => `- 09:0${i % 10} hand ^e${n}`).join('\n');
          // One append at a time, and all in one append (a day's draft numbers each after the last).
          let text = note;
          const seen = new Set(ids(text));
          const draft = new DayDraft(note, floor);
          const inDraft = new Set(ids(note));
          for (let k = 0; k < count; k++) {
            const id = nextBlockId(text, floor);
            expect(id).toMatch(/^e[1-9]\d{0,8}$/);
            expect(seen.has(id), `${id} twice`).toBe(false);
            seen.add(id);
            text += `\n- 10:00 next ^${id}`;
            const drafted = draft.nextBlockId();
            expect(drafted).toMatch(/^e[1-9]\d{0,8}$/);
            expect(inDraft.has(drafted), `${drafted} twice in one append`).toBe(false);
            inDraft.add(drafted);
            draft.add(`- 10:00 next ^${drafted}`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('are given on from the highest counted: a floor past MAX_CITED_ID does not move them', () => {
    expect(nextBlockId('- 09:00 a ^e7', 3)).toBe('e8');
    expect(nextBlockId('- 09:00 a ^e7', MAX_CITED_ID)).toBe(`e${MAX_CITED_ID + 1}`);
    expect(nextBlockId('- 09:00 a ^e7', MAX_CITED_ID + 1)).toBe('e8');
    expect(nextBlockId('- 09:00 a ^e7', Number.MAX_SAFE_INTEGER + 2)).toBe('e8');
    // A note holding the highest id by hand: on from the highest below the last million.
    expect(freshBlockIds([`e${MAX_BLOCK_ID}`, `e${MAX_CITED_ID + 1}`, 'e7'], 0, 2)).toEqual([
      `e${MAX_CITED_ID + 2}`,
      `e${MAX_CITED_ID + 3}`,
    ]);
    expect(freshBlockIds([`e${MAX_BLOCK_ID}`, 'e7'], 0, 1)).toEqual(['e8']);
    // And below that, too full: the lowest free above MAX_CITED_ID.
    const full = [`e${MAX_BLOCK_ID}`, `e${MAX_BLOCK_ID - 1_000_000}`, `e${MAX_CITED_ID + 1}`];
    expect(freshBlockIds(full, 0, 2)).toEqual([`e${MAX_CITED_ID + 2}`, `e${MAX_CITED_ID + 3}`]);
  });

  it('stay distinct and bounded when the day merge renumbers beside ids near the bound', () => {
    // Hand ids apart from the sides' own e1…e6 (a side holding an id twice keeps both lines).
    const far = digits.filter((n) => !(Number(n) <= 6 && /^[1-9]$/.test(n)));
    fc.assert(
      fc.property(fc.uniqueArray(far, { maxLength: 5 }), fc.integer({ min: 1, max: 6 }), (held, clashes) => {
        const head = `# ${DAYS[0]}\n`;
        const hand = held.map((n) => `- 08:00 by hand ^e${n}\n`).join('');
        const base = `${head}${hand}`;
        const side = (who: string) =>
          Array.from({ length: clashes }, (_, k) => `- 09:0${k} ${who} ${k} ^e${k + 1}\n`).join('');
        const { text, renumbered } = mergeDay(
          base,
          `${base}${side('ours')}`,
          `${base}${side('theirs')}`,
          DAYS[0]!,
        );
        const inNote = ids(text);
        expect(new Set(inNote).size).toBe(inNote.length);
        for (const to of renumbered.values()) expect(to).toMatch(/^e[1-9]\d{0,8}$/);
      }),
      { numRuns: 300 },
    );
  });
});
