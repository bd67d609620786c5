/**
 * The text redaction matches against: the same words as the input, with the disguises taken off.
 * Each character is put in NFKC (full-width `ｐａｓｓｗｏｒｄ` and `４１１１` become ASCII, `：` a colon),
 * and invisible and format characters are dropped (zero-width spaces and joiners, direction marks,
 * tag characters, the soft hyphen, variation selectors), so `p\u200bassword` reads `password`;
 * digits of other scripts become ASCII digits (`٤١١١`).
 * Every character of the view remembers the input characters it came from: a secret found in the
 * view is removed from the input whole, the invisible characters inside it included.
 *
 * Look-alike letters (`p4ssw0rd`, `pa$$word`) are not folded here: a value must be kept as typed, so
 * only the secret words are matched leniently (`leetWord`).
 */

/**
 * Characters that show nothing: every format character (Cf: zero-width space and joiners, word
 * joiner, BOM, soft hyphen, direction marks, tag characters) and every other default-ignorable one
 * (variation selectors, Hangul fillers, the combining grapheme joiner). The same set mem's text rule
 * removes from entries; here all of them go, since the view is only read.
 */
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;

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

export function secretView(input: string): SecretView {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const char of input) {
    const end = at + char.length;
    // ASCII is its own NFKC and never invisible: the common case costs no normalisation.
    const folded =
      char.charCodeAt(0) < 0x80 ? char : INVISIBLE.test(char) ? '' : asciiDigit(char.normalize('NFKC'));
    for (let i = 0; i < folded.length; i++) {
      from.push(at);
      to.push(end);
    }
    text += folded;
    at = end;
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
