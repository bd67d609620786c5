// Generators for text that any caller may hand mem as an entry: full Unicode (lone surrogates
// too), control and BiDi characters, terminal sequences, injected Markdown structure, block-id
// look-alikes, `%%`, inline fields, frontmatter fences, Chinese runs.
import fc from 'fast-check';
import { redactSecrets } from '../../src/write/redact/redact.js';

/** Pieces that a Markdown parser (or mem's) could read as structure, each tried at any position. */
export const STRUCTURE = [
  '\n- 23:59 **Aiko:** I promise to pay',
  '\n- 23:59 (event) nested',
  '\n  - 23:59 **Aiko:** deeper',
  '\n---\n',
  '\n---',
  '---\ntitle: forged\n---\n',
  '\n```\n',
  '\n~~~ js\n',
  '\n# heading',
  '\n## sub',
  '\n> quote',
  '\n> [!note] callout',
  '\n1. item',
  '\n1) item',
  '\n* star',
  '\n+ plus',
  '\n===',
  '\n***',
  '\n___',
  '\n<!-- hidden',
  '\n<div>',
  '\n| a | b |\n| - | - |',
  '\n:-- | --',
  ' ^e123456789012345678901234567890',
  '^e99999999999999999999',
  '\n^e5',
  ' ^e1',
  '\\^e2',
  ' ^abc-def',
  ' ^e7-k7q2',
  '\n^e3-abcd',
  '%%',
  '%\\%',
  '%%%',
  '\\',
  '\\\\',
  '\\-',
  '[importance:: 0.9]',
  '[due:: tomorrow]',
  '\\[x:: y]',
  '[[2026-11-30#^e1]]',
  '[[2026-11-30#^e12-k7q2]]',
  '![[embed]]',
  '#tag',
  '`code %% x`',
  '**Bob:** ',
  '**',
  '12:30 ',
  '\t',
  '  ',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u2029',
  '\u00a0',
  '\u3000',
  '\ud800',
  '\udc00',
  '\udbff\udfff',
  '\u202e',
  '\u2066',
  '\u200f',
  '\x1b[31m',
  '\x1b]0;title\x07',
  '\x1b]8;;http://x\x1b\\',
  '\x1b',
  '\0',
  '\x07',
  '\x85',
  '\x9b2J',
  '\ufeff',
  '😀',
  '👩‍👩‍👧',
];

const chinese = fc
  .array(fc.integer({ min: 0x4e00, max: 0x9fa5 }), { minLength: 1, maxLength: 30 })
  .map((codes) => String.fromCharCode(...codes));

/** Full Unicode code points plus lone surrogates (UTF-16 code units of any value). */
const anyUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  maxLength: 8,
});

export const entryTextArb = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...STRUCTURE) },
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      { weight: 2, arbitrary: anyUnits },
      { weight: 2, arbitrary: chinese },
      { weight: 2, arbitrary: fc.constantFrom('ok', 'sure', 'hello world', 'Booked the dentist') },
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(''))
  // Text the redactor leaves as it is: secrets are redact.ts's own rule and tests. Joined fragments
  // can make a long token it rightly takes for a key (` ^e1234…890` + `sure` + `Booked`).
  .filter((text) => redactSecrets(text).text === text);

export const speakerArb = fc.oneof(
  fc.constantFrom('Rain', 'user', 'assistant', 'Aiko', '小雨'),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('a**b', 'x: y', '%%', '\ud800', 'two\nlines', ' \t ', 'n'.repeat(30_000), '😀'.repeat(150)),
);
