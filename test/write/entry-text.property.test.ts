import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Section } from '../../src/core/types.js';
import { entryText, MAX_ENTRY_LINE, sanitizeText } from '../../src/vault/markdown/entry-text.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import {
  appendLine,
  cleanSpeaker,
  cleanTag,
  type EntryKind,
  nextBlockId,
  renderEntry,
} from '../../src/write/episode-entry.js';
import type { DayEntry } from '../../src/write/remember.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { entryTextArb, speakerArb } from './entry-text-arbitraries.js';

const SLOW = process.env['MEM_SLOW'] === '1';
const DAY = 'episodes/daily/2026-11-30.md';
const TEMPLATE = '---\ndate: 2026-11-30\ntype: episode\n---\n# 2026-11-30\n\n';

/** Cases tried per entry class, for the Reliability table (docs/reliability.md) (MEM_RELIABILITY_REPORT). */
const tried = { cases: 0, entries: 0 };
afterAll(() =>
  reportReliability({ class: 'entry text', cases: tried.cases, entries: tried.entries, lost: 0, forged: 0 }),
);

/** An entry as a caller gives it (its block id is the writer's to choose). */
type Written = Omit<DayEntry, 'blockId'>;

/** What reading an entry back must give: the text as the entry rule keeps it, tags after it. */
function expected(entry: Written): { text: string; speaker?: string; time: string; importance?: number } {
  const tags = (entry.tags ?? [])
    .map(cleanTag)
    .filter(Boolean)
    .map((t) => `#${t}`)
    .join(' ');
  const kind = entry.kind === 'event' || entry.kind === 'note' ? `(${entry.kind}) ` : '';
  const body = [entryText(entry.text), tags].filter(Boolean).join(entryText(entry.text) === '' ? '' : ' ');
  const speaker = entry.speaker === undefined ? '' : cleanSpeaker(entry.speaker);
  return {
    text: `${kind}${body}`.trim(),
    time: entry.time,
    ...(speaker ? { speaker } : {}),
    ...(entry.importance === undefined ? {} : { importance: entry.importance }),
  };
}

function blocks(text: string): Section[] {
  return parseNote(DAY, text).sections.filter((s) => s.kind === 'block');
}

const entryArb: fc.Arbitrary<Written> = fc.record(
  {
    text: entryTextArb,
    time: fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
    speaker: speakerArb,
    kind: fc.constantFrom<EntryKind>('chat', 'event', 'note'),
    tags: fc.array(
      fc.oneof(
        fc.constantFrom('work', '#家', 'a b', '^e1', '%%', '😀'.repeat(150)),
        fc.string({ maxLength: 5 }),
      ),
    ),
    importance: fc.constantFrom(0, 0.25, 0.9, 1),
  },
  { requiredKeys: ['text', 'time'] },
);

describe('the entry rule: any text written as an entry reads back as written, once', () => {
  it(
    'a day of entries parses to exactly those entries, each with its text, speaker, time and importance',
    () => {
      fc.assert(
        fc.property(fc.array(entryArb, { minLength: 1, maxLength: 6 }), (entries) => {
          tried.cases++;
          let note = TEMPLATE;
          for (const entry of entries) {
            tried.entries++;
            note = appendLine(note, renderEntry({ ...entry, blockId: nextBlockId(note) }));
          }
          const read = blocks(note);
          expect(read.map((s) => s.anchor)).toEqual(entries.map((_, i) => `^e${i + 1}`));
          expect(
            read.map((s) => ({
              text: s.text,
              time: s.time,
              ...(s.speaker ? { speaker: s.speaker } : {}),
              ...(s.importance === undefined ? {} : { importance: s.importance }),
            })),
          ).toEqual(entries.map(expected));
          // Nothing outside the entries: no heading, quote or stray text forged by one of them.
          const others = parseNote(DAY, note).sections.filter((s) => s.kind !== 'block');
          expect(others.map((s) => s.anchor)).toEqual([]);
          // What a terminal or git would choke on is gone.
          expect(note).not.toMatch(/[\0\x1b\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])/);
          expect(note).not.toMatch(/%%/);
          // No line reaches the index's cut (limits.maxLineChars, 20,000), which would lose a block id.
          expect(Math.max(...note.split('\n').map((l) => l.length))).toBeLessThan(20_000);
        }),
        { numRuns: SLOW ? 2000 : 100 },
      );
    },
    SLOW ? 600_000 : 30_000,
  );

  it('the rule keeps every non-space character of the sanitized text, and drops only what it says', () => {
    fc.assert(
      fc.property(entryTextArb, (text) => {
        tried.cases++;
        const squeeze = (s: string) => s.replace(/\s+/g, '');
        expect(squeeze(entryText(text))).toBe(squeeze(sanitizeText(text)));
        expect(entryText(entryText(text))).toBe(entryText(text));
      }),
      { numRuns: SLOW ? 5000 : 500 },
    );
  });

  it('a 100,000-character word (Latin, Chinese, or backslashes) is kept whole, folded, and its day stays one entry per write', () => {
    // remark spends ~40 µs on each backslash escape (4 s for 100k): that one runs long only under MEM_SLOW.
    const words = [
      'x'.repeat(100_000),
      '中'.repeat(100_000),
      '\\'.repeat(SLOW ? 100_000 : 10_000),
      '%'.repeat(SLOW ? 50_000 : 5_000),
      '😀'.repeat(30_000),
    ];
    for (const word of words) {
      tried.cases++;
      let note = TEMPLATE;
      note = appendLine(
        note,
        renderEntry({
          text: `${word} pineapple`,
          time: '09:00',
          speaker: 'Rain',
          blockId: nextBlockId(note),
        }),
      );
      note = appendLine(
        note,
        renderEntry({
          text: 'Booked the dentist',
          time: '10:00',
          speaker: 'Rain',
          blockId: nextBlockId(note),
        }),
      );
      // Escapes can double a folded line (`%%…`), never more: far below the index's 20,000 per line.
      expect(Math.max(...note.split('\n').map((l) => l.length))).toBeLessThan(2 * MAX_ENTRY_LINE + 100);
      const read = blocks(note);
      expect(read.map((s) => s.anchor)).toEqual(['^e1', '^e2']);
      expect(read[0]!.text).toBe(entryText(`${word} pineapple`));
      // Only folds differ from the word as given: every character is there, in order.
      expect(read[0]!.text.replace(/\s/g, '') === `${word}pineapple`).toBe(true);
    }
  });
});

describe('nextBlockId', () => {
  it('counts only ids mem writes: a `^e` with many digits in a message, or an escaped one, does not move it', () => {
    expect(nextBlockId('- 09:00 a ^e123456789012345678901234\n- 09:01 b ^e2\n')).toBe('e3');
    expect(nextBlockId('- 09:00 a \\^e77\n- 09:01 b ^e2\n')).toBe('e3');
    expect(nextBlockId('- 09:00 a\n^e4\n')).toBe('e5');
    expect(nextBlockId('- 09:00 a ^e4\r\n')).toBe('e5');
  });
});
