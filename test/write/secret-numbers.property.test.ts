import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCardNumber, isChineseId, passesLuhn } from '../../src/write/checksums.js';
import { redactSecrets } from '../../src/write/redact/redact.js';
import { digits, fullWidth, stripInvisible } from './secret-arbitraries.js';

// Issue 31: checksummed numbers are secrets in any grouping and any form of their digits; numbers
// whose check fails stay as written.

const clean = (text: string) => redactSecrets(text).text;

/** Arabic-Indic and Devanagari digits as ASCII, to look for a number in the output. */
const asciiDigits = (text: string) =>
  text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x660))
    .replace(/[\u0966-\u096f]/g, (d) => String(d.charCodeAt(0) - 0x966));

const luhnDigit = (body: string) => [...'0123456789'].findIndex((c) => passesLuhn(body + c));

/** Card-like numbers in every grouping people write: none, fours, 4-6-5 (fours when longer), any sizes of 3 to 6. */
const grouped = (number: string) =>
  fc
    .tuple(
      fc.constantFrom('none', 'fours', 'amex', 'random'),
      fc.constantFrom(' ', '.', '-'),
      fc.array(fc.integer({ min: 3, max: 6 }), { minLength: 8, maxLength: 8 }),
      fc.constantFrom('ascii', 'full-width', 'zero-width', 'arabic-indic', 'devanagari'),
    )
    .map(([grouping, separator, sizes, form]) => {
      let groups: string[];
      if (grouping === 'none') groups = [number];
      // American Express and Diners Club: 4-6-5 and 4-6-4.
      else if (grouping === 'amex' && number.length <= 15)
        groups = [number.slice(0, 4), number.slice(4, 10), number.slice(10)];
      else if (grouping !== 'random') groups = number.match(/.{1,4}/g) ?? [];
      else {
        groups = [];
        let at = 0;
        for (const size of sizes) {
          if (at >= number.length) break;
          groups.push(number.slice(at, at + size));
          at += size;
        }
        if (at < number.length) groups.push(number.slice(at));
      }
      const text = groups.filter(Boolean).join(separator);
      if (form === 'full-width') return fullWidth(text);
      if (form === 'zero-width') return [...text].join('\u200b');
      if (form === 'arabic-indic') return text.replace(/\d/g, (d) => String.fromCharCode(0x660 + Number(d)));
      if (form === 'devanagari') return text.replace(/\d/g, (d) => String.fromCharCode(0x966 + Number(d)));
      return text;
    });

const cardNumber = (valid: boolean) =>
  fc
    .tuple(fc.integer({ min: 2, max: 6 }), digits(11, 17))
    .map(([first, rest]) => {
      const body = `${first}${rest}`;
      const check = luhnDigit(body);
      return body + String(valid ? check : (check + 1 + (Number(rest.at(-1)) % 9)) % 10);
    })
    .chain((number) => grouped(number).map((shown) => ({ number, shown })));

const AROUND = fc.constantFrom(
  ['paid with ', ' yesterday'],
  ['card ', ' exp 12/28'],
  ['刷的是 ', '，记一下'],
  ['カードは ', ' です'],
  ['', ''],
);

describe('checksummed numbers, in any grouping and form', () => {
  it('a Luhn-valid card number goes: spaces, dots, dashes, none; full-width, other scripts, zero-width between', () => {
    fc.assert(
      fc.property(cardNumber(true), AROUND, ({ number, shown }, [before, after]) => {
        const out = stripInvisible(clean(`${before}${shown}${after}`)).normalize('NFKC');
        expect(asciiDigits(out).replace(/[ .-]/g, '')).not.toContain(number);
      }),
      { numRuns: 1000 },
    );
  });

  it('a Luhn-invalid one stays as written', () => {
    fc.assert(
      fc.property(cardNumber(false), AROUND, ({ number, shown }, [before, after]) => {
        fc.pre(!isChineseId(number));
        const text = `${before}order ${shown}${after}`;
        expect(clean(text)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  const chineseId = (valid: boolean) =>
    fc
      .tuple(
        fc.integer({ min: 110000, max: 829999 }),
        fc.date({ min: new Date('1930-01-01'), max: new Date('2020-12-31'), noInvalidDate: true }),
        digits(3, 3),
      )
      .map(([region, born, sequence]) => {
        const body = `${region}${born.toISOString().slice(0, 10).replaceAll('-', '')}${sequence}`;
        return body + ([...'0123456789X'].find((c) => isChineseId(body + c) === valid) ?? '0');
      });
  const idGrouping = (id: string) =>
    fc
      .tuple(fc.constantFrom('none', '6-8-4', 'fours'), fc.constantFrom(' ', '-'), fc.boolean())
      .map(([grouping, separator, wide]) => {
        const groups =
          grouping === 'none'
            ? [id]
            : grouping === 'fours'
              ? (id.match(/.{1,4}/g) ?? [])
              : [id.slice(0, 6), id.slice(6, 14), id.slice(14)];
        const text = groups.join(separator);
        return wide ? fullWidth(text) : text;
      });

  it('a Chinese resident ID with its check character goes in any grouping; one without stays', () => {
    fc.assert(
      fc.property(
        chineseId(true).chain((id) => idGrouping(id).map((shown) => ({ id, shown }))),
        fc.constantFrom(['身份证号 ', '，别外传'], ['ID ', ' on file'], ['', '']),
        ({ id, shown }, [before, after]) => {
          const out = clean(`${before}${shown}${after}`).normalize('NFKC').replace(/[ -]/g, '');
          expect(out).not.toContain(id);
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        chineseId(false).chain((id) => idGrouping(id).map((shown) => ({ id, shown }))),
        ({ id, shown }) => {
          fc.pre(!isCardNumber(id));
          const text = `流水号 ${shown}`;
          expect(clean(text)).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });
});
