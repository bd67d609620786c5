import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCardNumber, isChineseId, passesLuhn } from '../../src/write/checksums.js';
import { redactSecrets } from '../../src/write/redact.js';

// Issue 31: secrets told in words, in any language and any disguise, are redacted as a class:
// secret word × connector × value × language × obfuscation; the word alone in a sentence is not.

const clean = (text: string) => redactSecrets(text).text;

/**
 * Zero-width space and joiners, word joiner, direction marks and overrides, soft hyphen, a tag
 * character, BOM, and default-ignorable ones that are not format characters: the grapheme joiner, a
 * Hangul filler, a variation selector.
 */
const INVISIBLES = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u200e',
  '\u202e',
  '\u2066',
  '\u00ad',
  '\u{e0041}',
  '\ufeff',
  '\u034f',
  '\u3164',
  '\ufe0f',
];
const stripInvisible = (text: string) => text.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '');

/** Full-width forms of ASCII: `ｐａｓｓｗｏｒｄ`, `４１１１`, the ideographic space. */
const fullWidth = (text: string) =>
  text.replace(/[!-~ ]/g, (c) => (c === ' ' ? '\u3000' : String.fromCharCode(c.charCodeAt(0) + 0xfee0)));

/** Cyrillic letters that look like Latin ones. */
const HOMOGLYPH: Record<string, string> = {
  a: 'а',
  c: 'с',
  e: 'е',
  i: 'і',
  o: 'о',
  p: 'р',
  s: 'ѕ',
  x: 'х',
  y: 'у',
};

const LEET: Record<string, string[]> = {
  a: ['4', '@'],
  e: ['3'],
  i: ['1'],
  l: ['1'],
  o: ['0'],
  s: ['5', '$'],
  t: ['7'],
};

type Value = 'password' | 'pin' | 'cvv' | 'code' | 'passport' | 'ssn' | 'key' | 'card';
type Language = 'en' | 'zh' | 'ja';

/** Each secret word, its language and the value it names; `bare`: `PIN 4821` with no connector counts. */
const WORDS: Array<{ word: string; language: Language; value: Value; bare: boolean }> = [
  ...['password', 'passcode', 'passphrase', 'wifi password', 'login password', 'pwd'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'password' as const,
    bare: true,
  })),
  ...['PIN', 'PIN code', 'ATM pin', 'PIN number'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'pin' as const,
    bare: true,
  })),
  ...['CVV', 'CVC', 'CVV2', 'card security code'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'cvv' as const,
    bare: true,
  })),
  ...['verification code', 'OTP', 'security code', 'one-time code'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'code' as const,
    bare: true,
  })),
  ...['passport number', 'passport no.', 'passport'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'passport' as const,
    bare: true,
  })),
  ...['SSN', 'social security number', 'ID number', "driver's license number"].map((word) => ({
    word,
    language: 'en' as const,
    value: 'ssn' as const,
    bare: true,
  })),
  ...['API key', 'access token', 'token', 'client secret', 'secret key'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'key' as const,
    bare: false,
  })),
  ...['密码', '支付密码', '银行卡密码', '口令', 'WiFi密码'].map((word) => ({
    word,
    language: 'zh' as const,
    value: 'password' as const,
    bare: true,
  })),
  ...['card number', 'credit card', 'debit card number'].map((word) => ({
    word,
    language: 'en' as const,
    value: 'card' as const,
    bare: true,
  })),
  { word: '银行卡号', language: 'zh', value: 'card', bare: true },
  { word: '信用卡', language: 'zh', value: 'card', bare: true },
  { word: 'カード番号', language: 'ja', value: 'card', bare: true },
  { word: 'PIN码', language: 'zh', value: 'pin', bare: true },
  { word: '安全码', language: 'zh', value: 'cvv', bare: true },
  { word: '验证码', language: 'zh', value: 'code', bare: true },
  { word: '护照号', language: 'zh', value: 'passport', bare: true },
  { word: '护照号码', language: 'zh', value: 'passport', bare: true },
  { word: '身份证号', language: 'zh', value: 'ssn', bare: true },
  { word: '密钥', language: 'zh', value: 'key', bare: false },
  { word: '令牌', language: 'zh', value: 'key', bare: false },
  { word: 'パスワード', language: 'ja', value: 'password', bare: true },
  { word: '暗証番号', language: 'ja', value: 'pin', bare: true },
  { word: 'セキュリティコード', language: 'ja', value: 'cvv', bare: true },
  { word: '認証コード', language: 'ja', value: 'code', bare: true },
  { word: 'パスポート番号', language: 'ja', value: 'passport', bare: true },
  { word: 'マイナンバー', language: 'ja', value: 'ssn', bare: true },
  { word: 'APIキー', language: 'ja', value: 'key', bare: false },
];

/** How people join a word and its value; `%` is where the value goes. */
const CONNECTORS: Record<Language, { bare: string[]; joined: string[] }> = {
  en: {
    bare: [' %', ' "%"'],
    joined: [
      ' is %',
      ' was %',
      ': %',
      ':%',
      ' = %',
      '=%',
      ' - %',
      ' — %',
      "'s %",
      ' is now %',
      ' is still %',
      ' is: %',
      ' set to %',
      ' is set to %',
      ' was changed to %',
      ' for my account is %',
      ' for the router: %',
      ' for my bank card is %',
      ' is "%"',
      ' is “%”',
      " is '%'",
    ],
  },
  zh: {
    bare: [' %', '%', '「%」'],
    joined: ['是%', '是 %', '为%', '：%', ': %', '改成了 %', '改为%', '设置为 %', '就是 %', '是「%」'],
  },
  ja: {
    bare: [' %', '「%」'],
    joined: ['は%', 'は %', 'は%です', 'は「%」です', '：%', ': %', 'を % に変更した'],
  },
};

const PREFIXES: Record<Language, string[]> = {
  en: ['', 'my ', 'the ', 'btw my ', 'FYI, the '],
  zh: ['', '我的', '记一下，'],
  ja: ['', '私の', 'メモ：'],
};
const SUFFIXES: Record<Language, string[]> = {
  en: ['', ' thanks', ", don't share it", '. ok', ' (new)'],
  zh: ['', '，别告诉别人', '。', ' 记住了'],
  ja: ['', '。', ' 忘れないで'],
};

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
const upper = fc.constantFrom(...'ABCDEFGHJKLMNPRSTUVWXYZ');

/** Values as people type them: every one has a digit (a password with none is prose: `is wrong`). */
const VALUES: Record<Value, fc.Arbitrary<string>> = {
  password: fc
    .tuple(fc.stringMatching(/^[A-Za-z0-9!@#$%^&*_+\-~]{3,16}$/), fc.integer({ min: 0, max: 9 }))
    .map(([chars, digit]) => `${chars}${digit}`)
    .filter((p) => !/^[-]/.test(p)),
  pin: digits(4, 8),
  cvv: digits(3, 4),
  code: digits(4, 8),
  passport: fc.tuple(upper, digits(7, 8)).map(([letter, number]) => letter + number),
  ssn: fc.tuple(digits(3, 3), digits(2, 2), digits(4, 4)).map((parts) => parts.join('-')),
  // After its name a card number goes whatever its check digit: a mistyped one still says too much.
  card: fc
    .tuple(digits(12, 19), fc.constantFrom('', ' ', '-'))
    .map(([number, sep]) => (sep ? (number.match(/.{1,4}/g) ?? []).join(sep) : number))
    .filter((n) => !/[ -]\d$/.test(n)),
  key: fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{8,20}$/), upper, digits(1, 2)).map(([a, b, c]) => a + b + c),
};

/** Disguises for the word; the value may carry invisible characters or be full-width too. */
const disguise = (word: string, language: Language) =>
  fc
    .record({
      leet: fc.boolean(),
      cases: fc.boolean(),
      homoglyph: fc.boolean(),
      markdown: fc.constantFrom('', '**', '`', '__'),
      // Combining marks drawn over each letter (p̲a̲s̲s̲), or a space between CJK characters (密 码).
      marks: fc.constantFrom('', '\u0332', '\u0336', '\u0301'),
      spaced: fc.boolean(),
      invisible: fc.option(fc.tuple(fc.constantFrom(...INVISIBLES), fc.nat()), { nil: undefined }),
    })
    .map(({ leet, cases, homoglyph, markdown, marks, spaced, invisible }) => {
      let out = [...word]
        .map((c, i) => {
          const lower = c.toLowerCase();
          if (language === 'en' && leet && LEET[lower] && i % 2 === 0)
            return LEET[lower][i % LEET[lower].length];
          if (language === 'en' && homoglyph && HOMOGLYPH[lower] && i % 2 === 1) return HOMOGLYPH[lower];
          if (cases && /[a-z]/i.test(c)) return i % 3 === 0 ? c.toUpperCase() : c.toLowerCase();
          return c;
        })
        .join('');
      if (language === 'en' && marks) out = [...out].map((c) => (/[a-z]/i.test(c) ? c + marks : c)).join('');
      if (spaced)
        out = out.replace(
          /(?<=[\p{sc=Han}\p{sc=Katakana}\p{sc=Hiragana}ー])(?=[\p{sc=Han}\p{sc=Katakana}\p{sc=Hiragana}ー])/gu,
          ' ',
        );
      if (invisible) {
        const [char, at] = invisible;
        const cut = 1 + (at % Math.max(1, out.length - 1));
        out = out.slice(0, cut) + char + out.slice(cut);
      }
      return markdown + out + markdown;
    });

const secretSentence = fc
  .constantFrom(...WORDS)
  .chain((entry) => {
    const { language } = entry;
    const connectors = entry.bare
      ? [...CONNECTORS[language].joined, ...CONNECTORS[language].bare]
      : CONNECTORS[language].joined;
    return fc.record({
      entry: fc.constant(entry),
      word: disguise(entry.word, language),
      connector: fc.constantFrom(...connectors),
      value: VALUES[entry.value],
      prefix: fc.constantFrom(...PREFIXES[language]),
      suffix: fc.constantFrom(...SUFFIXES[language]),
      valueInvisible: fc.option(fc.tuple(fc.constantFrom(...INVISIBLES), fc.nat()), { nil: undefined }),
      wide: fc.constantFrom('none', 'all', 'value'),
    });
  })
  .map(({ word, connector, value, prefix, suffix, valueInvisible, wide }) => {
    let typed = wide === 'none' ? value : fullWidth(value);
    if (valueInvisible) {
      const [char, at] = valueInvisible;
      const cut = 1 + (at % Math.max(1, typed.length - 1));
      typed = typed.slice(0, cut) + char + typed.slice(cut);
    }
    let text = prefix + word + connector.replace('%', () => typed) + suffix;
    if (wide === 'all') text = fullWidth(text);
    return { text, value };
  });

describe('secrets told in words: word × connector × value × language × disguise', () => {
  it('the value never reaches the output, not even once invisible characters are removed and NFKC applied', () => {
    fc.assert(
      fc.property(secretSentence, ({ text, value }) => {
        const out = redactSecrets(text);
        const seen = stripInvisible(out.text).normalize('NFKC');
        expect(seen, text).not.toContain(value);
        expect(out.redactions.length, text).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('removes exactly the input spans it reports, whatever invisible or full-width characters they hold', () => {
    fc.assert(
      fc.property(secretSentence, ({ text }) => {
        const { text: out, redactions } = redactSecrets(text);
        let rebuilt = '';
        let at = 0;
        for (const r of redactions) {
          expect(r.start).toBeGreaterThanOrEqual(at);
          rebuilt += text.slice(at, r.start) + `[REDACTED:${r.kind}]`;
          at = r.end;
        }
        expect(rebuilt + text.slice(at)).toBe(out);
        // Redacting the output again finds nothing more.
        expect(redactSecrets(out).text).toBe(out);
      }),
      { numRuns: 500 },
    );
  });
});

/** The word in a sentence that gives no value after it. `%` is where the word goes. */
const MENTIONS: Record<Language, string[]> = {
  en: [
    'I forgot my % again',
    'the % reset email never came',
    "what's a good % length?",
    '% must be at least 8 characters',
    'is my % safe?',
    'I changed my % yesterday',
    'the % is wrong',
    'my % expired last week',
    'the % field is empty',
    '% reminder set for Friday',
    'where do I find the %?',
    'the % was changed to something stronger',
    'never share your % with anyone',
    'the % for my card is somewhere in my notes',
  ],
  zh: [
    '我忘了%',
    '%错误三次，账户被锁了',
    '%是什么来着',
    '%要求至少8位',
    '我的% 2024 年换过一次',
    '%忘记了，去柜台重置',
    '%设置为空',
  ],
  ja: [
    '%を変更した',
    '%を忘れました',
    '%は8文字以上にしてください',
    '%が違います',
    '%をリセットしてください',
  ],
};

const mention = fc
  .constantFrom(...WORDS)
  .chain((entry) =>
    fc.record({
      template: fc.constantFrom(...MENTIONS[entry.language]),
      word: disguise(entry.word, entry.language),
      wide: fc.boolean(),
    }),
  )
  .map(({ template, word, wide }) => {
    const text = template.replace('%', () => word);
    return wide ? fullWidth(text) : text;
  });

describe('a sentence that only mentions a secret word', () => {
  it('stays as written, in any language and disguise', () => {
    fc.assert(
      fc.property(mention, (text) => {
        expect(clean(text)).toBe(text);
      }),
      { numRuns: 1500 },
    );
  });
});

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
