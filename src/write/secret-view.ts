/**
 * The text redaction matches against: the same words as the input, with the disguises taken off.
 * Each character is put in NFKC (full-width `ｐａｓｓｗｏｒｄ` and `４１１１` become ASCII, `：` a colon),
 * and invisible and format characters are dropped (zero-width spaces and joiners, direction marks,
 * tag characters, the soft hyphen, variation selectors), so `p\u200bassword` reads `password`.
 * Every character of the view remembers the input characters it came from: a secret found in the
 * view is removed from the input whole, the invisible characters inside it included.
 *
 * Look-alike letters (`p4ssw0rd`, `pa$$word`) are not folded here: a value must be kept as typed, so
 * only the secret words are matched leniently (`leetWord`).
 */

const FORMAT = /^\p{Cf}$/u;
/** The grapheme joiner and the Hangul fillers: not format characters, and they show nothing either. */
const BLANK = new Set([0x034f, 0x115f, 0x1160, 0x3164, 0xffa0]);

/** Characters that show nothing: format characters (Cf), variation selectors, the grapheme joiner, Hangul fillers. */
function invisible(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (
    FORMAT.test(char) ||
    BLANK.has(code) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xe0100 && code <= 0xe01ef)
  );
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
    const folded = char.charCodeAt(0) < 0x80 ? char : invisible(char) ? '' : char.normalize('NFKC');
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

/** Digits and symbols typed for letters: `p4ssw0rd`, `pa$$word`, `P1N`, `t0ken`, `53cr3t`. */
const LEET: Record<string, string> = {
  a: 'a4@',
  e: 'e3',
  i: 'i1!',
  l: 'l1',
  o: 'o0',
  s: 's5$',
  t: 't7',
};

/**
 * A regular-expression source for a word as people disguise it: letters may be their leet digits,
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
