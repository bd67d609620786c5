// Invisible characters (every format character, Cf, and every default-ignorable one: tag
// characters, zero-width ones, direction marks, embeddings and isolates, variation selectors …)
// inserted anywhere in any text: the entry mem stores and the context compile shows hold none of
// them, but where they are part of what is seen (an emoji ZWJ sequence, a subdivision flag, a
// non-joiner in Persian, one variation selector after a character), and the visible text is
// unchanged. The characters are every code point of the kind, not a list of reported ones.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { removeInvisible, sanitizeText } from '../../src/vault/markdown/sanitize-text.js';
import { nextBlockId, renderEntry } from '../../src/write/episode-entry.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const IS_INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** Every invisible code point: 4,000 and more, tag characters and unassigned ignorables included. */
const INVISIBLES: string[] = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  if (IS_INVISIBLE.test(c)) INVISIBLES.push(c);
}
const everyInvisible = (text: string) => text.replace(new RegExp(IS_INVISIBLE.source, 'gu'), '');

/** Visible text: any graphemes (no controls: those have their own rule), emoji, Persian, Chinese. */
const visible = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('👩', '💻', '🏴', '❤', '1', 'a', 'می', 'خواهم', 'नमस्ते', '中文', ' ', '\n', 'e'),
    ),
    { maxLength: 8 },
  )
  .map((parts) => everyInvisible(parts.join('')).replace(/\p{Cc}/gu, ' '));

/** `text` with invisible characters (any of them, tag runs spelling words too) put anywhere. */
const withInvisible = fc
  .tuple(
    visible,
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.oneof(
          fc.constantFrom(...INVISIBLES),
          // Hidden ASCII in tag characters, as a smuggled instruction would be written.
          fc.string({
            unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(0xe0000 + c)),
          }),
          fc.constantFrom('\u200d', '\u200c', '\ufe0f', '\u202e', '\u2066', '\u200b'),
        ),
      ),
      { minLength: 1, maxLength: 10 },
    ),
  )
  .map(([text, inserts]) => {
    const chars = [...text];
    for (const [at, piece] of inserts) chars.splice(at % (chars.length + 1), 0, piece);
    return { text, hidden: chars.join('') };
  });

// Where an invisible character is part of what is seen: an independent reading of the rule's
// exceptions (sanitize-text.ts), code point by code point.
const PICTO = /\p{Extended_Pictographic}/u;
const JOINING =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;
const SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u180B-\u180D\u180F]/u;
const SHOWN_MARK = (c: string) => /\p{M}/u.test(c) && !IS_INVISIBLE.test(c);
const FLAGS = ['gbeng', 'gbsct', 'gbwls'].map(
  (tag) => `🏴${[...tag].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}\u{E007F}`,
);

/** The invisible characters of `text` outside those places. */
function hiddenLeft(text: string): string[] {
  let rest = text;
  for (const flag of FLAGS) rest = rest.replaceAll(flag, '🏴');
  const cps = [...rest];
  return cps.filter((c, i) => {
    if (!IS_INVISIBLE.test(c)) return false;
    if (c === '\u200d') {
      let j = i - 1;
      if (cps[j] === '\ufe0f') j--;
      if (/[\u{1F3FB}-\u{1F3FF}]/u.test(cps[j] ?? '')) j--;
      return !(PICTO.test(cps[j] ?? '') && PICTO.test(cps[i + 1] ?? ''));
    }
    if (c === '\u200c') {
      let j = i - 1;
      while (j >= 0 && SHOWN_MARK(cps[j]!)) j--;
      return !(JOINING.test(cps[j] ?? '') && JOINING.test(cps[i + 1] ?? ''));
    }
    if (SELECTOR.test(c)) {
      let j = i - 1;
      while (j >= 0 && SHOWN_MARK(cps[j]!)) j--;
      const base = cps[j];
      return base === undefined || /[\s\p{Cc}]/u.test(base) || IS_INVISIBLE.test(base);
    }
    return true;
  });
}

const DAY = 'episodes/daily/2026-11-30.md';
const TEMPLATE = '---\ntype: daily\n---\n# 2026-11-30\n\n';
const entryTextOf = (note: string) =>
  parseNote(DAY, note)
    .sections.filter((s) => s.kind === 'block')
    .map((s) => s.text);

describe('invisible characters', () => {
  it('the text rule removes every one of them but where it is seen, and keeps the visible text', () => {
    fc.assert(
      fc.property(withInvisible, ({ text, hidden }) => {
        const kept = sanitizeText(hidden);
        expect(hiddenLeft(kept)).toEqual([]);
        expect(everyInvisible(kept)).toBe(everyInvisible(sanitizeText(text)));
        expect(sanitizeText(kept)).toBe(kept);
        expect(removeInvisible(removeInvisible(hidden))).toBe(removeInvisible(hidden));
      }),
      { numRuns: 2000 },
    );
  });

  it("a non-joiner is kept by a joining script's letters, never by its invisible characters", () => {
    // A run drew U+0891 (Arabic piastre mark above, a format character) before a non-joiner: the
    // non-joiner was kept for it, and stood alone once the mark was removed.
    const own = INVISIBLES.filter((c) => JOINING.test(c));
    expect(own.length).toBeGreaterThan(5);
    for (const c of own) {
      for (const text of [
        `${c}\u200cخواهم`,
        `می\u200c${c}`,
        `می${c}\u200cخواهم`,
        `न${c}\u200cस`,
        `می\u200c${c}خواهم`,
      ]) {
        const kept = sanitizeText(text);
        const name = `U+${c.codePointAt(0)!.toString(16)} in ${JSON.stringify(text)}`;
        expect(hiddenLeft(kept), name).toEqual([]);
        expect(sanitizeText(kept), name).toBe(kept);
      }
      // Between two letters the non-joiner is spelling, whatever invisible one stood beside it (but
      // a variation selector right after the letter: it stays, and the non-joiner after it goes).
      if (SELECTOR.test(c)) continue;
      for (const text of [`می${c}\u200cخواهم`, `می\u200c${c}خواهم`, `می\u200b\u200c${c}خواهم`])
        expect(sanitizeText(text), `U+${c.codePointAt(0)!.toString(16)}`).toBe('می\u200cخواهم');
    }
    expect(sanitizeText('می\u200cخواهم')).toBe('می\u200cخواهم');
  });

  it('every one of them, after a space or doubled after a letter, is gone from a stored entry', () => {
    for (const c of INVISIBLES) {
      const text = `a ${c}b c${c}${c}d`;
      const note = `${TEMPLATE}${renderEntry({ text, time: '09:00', blockId: 'e1', speaker: `R ${c}ain` })}\n`;
      const name = `U+${c.codePointAt(0)!.toString(16)}`;
      // Only a variation selector stays, once, after the letter it selects a glyph of.
      expect(note.split(c).length - 1, name).toBe(SELECTOR.test(c) ? 1 : 0);
      expect(hiddenLeft(note), name).toEqual([]);
    }
  });

  it('a stored entry holds none of them, and reads back as its visible text', () => {
    const stored = (text: string) =>
      `${TEMPLATE}${renderEntry({ text, time: '09:00', blockId: nextBlockId(TEMPLATE), speaker: 'Rain' })}\n`;
    fc.assert(
      fc.property(withInvisible, ({ text, hidden }) => {
        const note = stored(hidden);
        expect(hiddenLeft(note)).toEqual([]);
        expect(entryTextOf(note).map(everyInvisible)).toEqual(entryTextOf(stored(text)).map(everyInvisible));
      }),
      { numRuns: 1000 },
    );
  });

  it('compile shows none of them from any note, whoever wrote it, and every visible word', async () => {
    await fc.assert(
      fc.asyncProperty(withInvisible, withInvisible, async (said, note) => {
        const word = 'Visiblewordqz';
        const hiddenNote = `${word} ${note.hidden}`;
        const root = await makeVault(
          {
            // Written by hand (or by a remote, an import): never through mem's text rule.
            'persona/identity.md': `# Identity\nI am Rain. ${hiddenNote}\n`,
            'profile/user.md': `---\npinned: true\n---\n# User ${note.hidden}\n- ${hiddenNote}\n`,
            'insights/facts/hidden.md': `---\ntitle: Hidden ${note.hidden}\npinned: true\n---\n# Hidden\n${hiddenNote}\n`,
            [DAY]: `${TEMPLATE}- 09:00 **Rain\u{E0041}:** ${hiddenNote} \u202e ^e1\n`,
          },
          { config: { timezone: 'UTC' } },
        );
        const vault = await openVault({ path: root, cache: false });
        try {
          await vault.remember({
            text: `${word} ${said.hidden}`,
            at: new Date('2026-11-30T09:05:00Z'),
            commit: false,
          });
          const { markdown, sections } = vault.compile({
            message: word,
            budget: 4000,
            now: new Date('2026-11-30T10:00:00Z'),
          });
          expect(hiddenLeft(markdown)).toEqual([]);
          for (const s of sections)
            for (const item of s.items) expect(hiddenLeft(`${item.title}${item.text}`)).toEqual([]);
          expect(markdown).toContain(`I am Rain. ${word}`);
        } finally {
          await vault.close();
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
