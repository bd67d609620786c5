/**
 * The text redaction matches against: the same words as the input, with the disguises taken off.
 * Each character, with the marks that follow it, is put in NFKC (full-width `ｐａｓｓｗｏｒｄ` and
 * `４１１１` become ASCII, `：` a colon, `ハ` + `゚` is `パ`); invisible and format characters are dropped
 * (zero-width spaces and joiners, direction marks, tag characters, the soft hyphen, variation
 * selectors), so `p\u200bassword` reads `password`; marks NFKC could not compose are dropped
 * (`p̲a̲s̲s̲w̲o̲r̲d̲`); digits of other scripts become ASCII digits (`٤١١١`).
 * Every character of the view remembers the input characters it came from: a secret found in the
 * view is removed from the input whole, the invisible characters and marks inside it included.
 *
 * Look-alike letters (`p4ssw0rd`, `pa$$word`) are not folded here: a value must be kept as typed, so
 * only the secret words are matched leniently (`leetWord`).
 */

import { INVISIBLE } from '../../vault/markdown/sanitize-text.js';

const DECIMAL = /^\p{Nd}$/u;

/**
 * A decimal digit of any script as its ASCII digit (`٤١١١` is `4111`; NFKC leaves it). Digits of a
 * script are ten code points in a row, so a digit's value is its distance from the first of them.
 */
function asciiDigit(char: string): string {
  if (!DECIMAL.test(char) || char.charCodeAt(0) < 0x80) return char;
  let code = char.codePointAt(0) ?? 0;
  let value = 0;
  while (value < 9 && DECIMAL.test(String.fromCodePoint(code - 1))) {
    code--;
    value++;
  }
  return String(value);
}

export interface SecretView {
  /** The normalised text */
  text: string;
  /** For each UTF-16 unit of `text`, the input offset where the character it came from starts */
  from: number[];
  /** For each UTF-16 unit of `text`, the input offset where the character it came from ends */
  to: number[];
}

/**
 * A character with the marks that follow it (`p̲`, `ハ` + `゚`, half-width `ﾊ` + `ﾟ`), or marks with
 * nothing before them.
 */
const SEGMENT = /[^\p{M}][\p{M}\uFF9E\uFF9F]*|\p{M}+/gsu;
/** Marks NFKC did not compose into a letter (`p̲`, Zalgo): drawn over a letter, they do not change it. */
const LOOSE_MARKS = /[\p{Mn}\p{Me}]/gu;
/**
 * Characters that show nothing: every format character (Cf: zero-width space and joiners, word
 * joiner, BOM, soft hyphen, direction marks, tag characters) and every other default-ignorable one
 * (variation selectors, Hangul fillers, the combining grapheme joiner). The same set mem's text rule
 * removes from entries; here all of them go, since the view is only read.
 */
const INVISIBLES = new RegExp(INVISIBLE.source, 'gu');
const DIGITS = /\p{Nd}/gu;
const ACCENTED = /[\u00C0-\u024F\u1E00-\u1EFF]/gu;

/** A Latin letter with accents as its ASCII letter (`Ć` is `C`); `パ` keeps its mark, ASCII has no base for it. */
function latinBase(char: string): string {
  const parts = char.normalize('NFD');
  return /^[A-Za-z]\p{M}+$/u.test(parts) ? parts[0]! : char;
}

/** Folded segments, as a CJK text repeats its characters: bounded, cleared when full. */
const FOLDED = new Map<string, string>();

function fold(segment: string): string {
  // ASCII is its own NFKC and never invisible: the common case costs no normalisation.
  if (segment.length === 1 && segment.charCodeAt(0) < 0x80) return segment;
  let folded = FOLDED.get(segment);
  if (folded !== undefined) return folded;
  folded = segment
    .replace(INVISIBLES, '')
    .normalize('NFKC')
    .replace(LOOSE_MARKS, '')
    .replace(ACCENTED, latinBase)
    .replace(DIGITS, asciiDigit);
  if (FOLDED.size >= 4096) FOLDED.clear();
  FOLDED.set(segment, folded);
  return folded;
}

export function secretView(input: string): SecretView {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (const match of input.matchAll(SEGMENT)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    const folded = fold(match[0]);
    for (let i = 0; i < folded.length; i++) {
      from.push(start);
      to.push(end);
    }
    text += folded;
  }
  return { text, from, to };
}

/** The input span of the view's `[start, end)`: every input character any part of it came from. */
export function inputSpan(view: SecretView, start: number, end: number): { start: number; end: number } {
  return { start: view.from[start] ?? 0, end: view.to[end - 1] ?? 0 };
}

/**
 * Digits and symbols typed for letters (`p4ssw0rd`, `pa$$word`, `P1N`, `t0ken`), and the Cyrillic
 * and Greek letters that look like Latin ones (`pаssword` with a Cyrillic а). Upper case comes with
 * the `i` flag.
 */
const LEET: Record<string, string> = {
  a: 'a4@\u0430\u03b1',
  b: 'b\u0432',
  c: 'c\u0441\u03f2',
  d: 'd\u0501',
  e: 'e3\u0435',
  h: 'h\u04bb',
  i: 'i1!\u0456\u03b9',
  j: 'j\u0458',
  k: 'k\u043a\u03ba',
  l: 'l1\u04cf',
  m: 'm\u043c',
  o: 'o0\u043e\u03bf',
  p: 'p\u0440\u03c1',
  s: 's5$\u0455',
  t: 't7\u0442\u03c4',
  v: 'v\u03bd',
  w: 'w\u051d',
  x: 'x\u0445\u03c7',
  y: 'y\u0443',
};

/**
 * A regular-expression source for a word as people disguise it: letters may be their leet digits
 * or look-alike letters of other scripts,
 * and a space or a hyphen in the word may be a space, a hyphen, an underscore or nothing
 * (`api key`, `api_key`, `apikey`). Use it with the `i` flag.
 */
export function leetWord(word: string): string {
  let source = '';
  for (const char of word) {
    const lower = char.toLowerCase();
    if (char === ' ' || char === '-') source += '[ _-]?';
    else if (LEET[lower]) source += `[${LEET[lower].replace(/[$\\\]^-]/g, '\\$&')}]`;
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return source;
}
