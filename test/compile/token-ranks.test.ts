// memvault counts tokens with its own rank tables (compile/token-ranks.ts); the counts must be
// gpt-tokenizer's, token for token, for every text a note can hold, in both encodings.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bpeCounter } from '../../src/compile/count-tokens.js';
import { ENCODINGS, type Encoding, RANKS_DIR, RankTable } from '../../src/compile/token-ranks.js';
import { EXAMPLE_VAULT } from '../helpers/make-vault.js';

const require = createRequire(import.meta.url);
const PLAIN = { disallowedSpecial: new Set<string>() };

type CountTokens = (text: string, options: typeof PLAIN) => number;
const reference = (encoding: Encoding) =>
  (require(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens: CountTokens }).countTokens;
const ranks = (encoding: Encoding) =>
  (require(`gpt-tokenizer/cjs/bpeRanks/${encoding}`) as { default: Array<string | number[]> }).default;
const split = (encoding: Encoding) =>
  (require('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, RegExp>)[
    encoding === 'o200k_base' ? 'O200K_TOKEN_SPLIT_REGEX' : 'CL100K_TOKEN_SPLIT_REGEX'
  ] as RegExp;

// Pieces of what notes hold: words with capitals and contractions, CJK, emoji and joiners,
// combining marks, digits, punctuation runs, Markdown, line breaks and spaces of every kind,
// special-token markers (plain text to mem), lone surrogates, bytes no token starts with.
const PIECES = [
  'the',
  ' The',
  "I'm",
  "they'LL",
  'don’t',
  'HELLO',
  'McDonald',
  'naïve',
  'e\u0301',
  '我们',
  '昨天去爬山了',
  '。',
  '，',
  'こんにちは',
  '한국어',
  'Ελληνικά',
  'русский',
  'עברית',
  'العربية',
  'हिन्दी',
  '👨‍👩‍👧',
  '🏳️‍🌈',
  '😀',
  '1',
  '12',
  '12345',
  '3.14',
  '٣',
  '![[x.png]]',
  '[[Note#^e1|alias]]',
  '- [ ] ',
  '**A:**',
  '`code`',
  '```ts\nconst x = 1;\n```',
  '\n',
  '\n\n',
  '\r\n',
  ' ',
  '  ',
  '\t',
  '\u00a0',
  '\u3000',
  '<|endoftext|>',
  '<|im_start|>',
  '\ud800',
  '\udc00x',
  '\u0000',
  '\u200b',
  '—',
  '...',
  '!!!',
  '://',
  'https://x.y/z?a=1',
  // A byte-order mark: gpt-tokenizer never finds the tokens that start with one (it drops the mark
  // when it turns bytes into a string), and mem counts as it does.
  '\ufeff',
  '\ufeffusing',
  '\ufeff\n\n',
  '\ufeffnamespace',
  '\ufeff//',
  'x\ufeff',
];

const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...PIECES),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.string({ maxLength: 8 }),
    ),
    {
      maxLength: 40,
    },
  )
  .map((parts) => parts.join(''));

describe('the rank tables', () => {
  for (const encoding of ENCODINGS) {
    const table = RankTable.fromRanks(ranks(encoding));
    const count = bpeCounter(table, split(encoding));
    const want = reference(encoding);

    it(`count as gpt-tokenizer does in ${encoding}, for generated text`, () => {
      fc.assert(
        fc.property(text, (t) => {
          expect(count(t)).toBe(want(t, PLAIN));
        }),
        { numRuns: 600 },
      );
    });

    it(`count as gpt-tokenizer does in ${encoding}, for every note of the example vault and long runs`, () => {
      const notes: string[] = [];
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.name.startsWith('.')) continue;
          if (entry.isDirectory()) walk(join(dir, entry.name));
          else if (entry.name.endsWith('.md')) notes.push(readFileSync(join(dir, entry.name), 'utf8'));
        }
      };
      walk(EXAMPLE_VAULT);
      expect(notes.length).toBeGreaterThan(10);
      for (const t of [...notes, 'a'.repeat(3000), '爬'.repeat(500), ' '.repeat(700), '1'.repeat(99)])
        expect(count(t)).toBe(want(t, PLAIN));
    });

    it(`read from a file as they were written, in ${encoding}; a damaged file is refused`, () => {
      const file = table.encode();
      const again = bpeCounter(RankTable.decode(file), split(encoding));
      for (const t of ['Hello, world!', '我们昨天去爬山了。', '👨‍👩‍👧 family <|endoftext|>'])
        expect(again(t)).toBe(want(t, PLAIN));
      for (const at of [0, 8, 30, file.length >> 1, file.length - 1]) {
        const damaged = file.slice();
        damaged[at] = (damaged[at] as number) ^ 0x40;
        expect(() => RankTable.decode(damaged), `byte ${at}`).toThrow();
      }
      expect(() => RankTable.decode(file.subarray(0, file.length - 4))).toThrow(/not whole/);
      // Read from a buffer that does not start on a 4-byte boundary: copied, not refused.
      const unaligned = Buffer.alloc(file.length + 2);
      unaligned.set(file, 2);
      expect(bpeCounter(RankTable.decode(unaligned.subarray(2)), split(encoding))('Hello, world!')).toBe(
        want('Hello, world!', PLAIN),
      );
    });

    it(`refuses a table whose lookups would not end, in ${encoding}`, () => {
      // Whole and with a right CRC-32, but no empty slot (none at all, or a rank out of range).
      const crafted = (slots: number[]) => {
        const body = Buffer.concat([
          Buffer.from(Uint32Array.of(0, 1).buffer),
          Buffer.from(Int32Array.from(slots).buffer),
          Buffer.from([0x61]),
        ]);
        const magic = new Uint32Array(table.encode().buffer, 0, 2);
        const header = Uint32Array.of(
          magic[0] as number,
          magic[1] as number,
          1,
          1,
          slots.length,
          crc32(body),
        );
        return new Uint8Array(Buffer.concat([Buffer.from(header.buffer), body]));
      };
      expect(() => RankTable.decode(crafted([]))).toThrow(/damaged/);
      expect(() => RankTable.decode(crafted([0]))).toThrow(/damaged/);
      expect(() => RankTable.decode(crafted([0, 5]))).toThrow(/damaged/);
      expect(RankTable.decode(crafted([0, -1])).rank(Uint8Array.of(0x61), 0, 1)).toBe(0);
    });

    it.runIf(existsSync(join(RANKS_DIR, `${encoding}.bin`)))(
      `the build's table of ${encoding} is the one made from gpt-tokenizer's ranks`,
      () => {
        expect(
          Buffer.from(readFileSync(join(RANKS_DIR, `${encoding}.bin`))).equals(Buffer.from(table.encode())),
        ).toBe(true);
      },
    );
  }
});
