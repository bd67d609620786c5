// What mem removes or replaces in any text it keeps, before it is journaled or written, and what
// compile removes from any note text it shows (removeInvisible).

/**
 * Characters removed from any text mem keeps: C0 controls but tab and newline (CR becomes a
 * newline first), DEL, C1 controls, and the BiDi embeddings, overrides and isolates
 * (U+202A–202E, U+2066–2069), which can make a line read in another order than it is stored.
 * NUL alone made git treat a day as a binary file.
 */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
/** Terminal sequences whole: CSI (`ESC [ … final`) and OSC (`ESC ] … BEL` or `ESC \`). */
const TERMINAL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;
/**
 * Invisible characters: every format character (Cf: zero-width space, joiners, word joiner, BOM,
 * soft hyphen, direction marks U+200E/200F/061C, the embeddings and isolates, tag characters
 * U+E0000–E007F…) and every other default-ignorable one (variation selectors, Hangul fillers,
 * combining grapheme joiner). Shown as nothing, they can carry text a reader never sees (tag
 * characters spell ASCII) or make a line read in another order. Removed, but where they are part
 * of what is seen (the rule's exceptions, KEPT_INVISIBLE below).
 */
export const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/**
 * The invisible characters kept, because removing them changes what the text shows:
 * - the tag sequences of the flags of England, Scotland and Wales (🏴 and `gbeng`, `gbsct`, `gbwls`
 *   in tag characters), and no other: any other tag text is hidden ASCII;
 * - a zero-width joiner inside an emoji sequence (👩‍💻 is one picture, 👩💻 two): one ZWJ between two
 *   pictographs, the first maybe with its skin tone and presentation selector;
 * - a zero-width non-joiner between two letters of a script that joins or conjoins them (Arabic,
 *   Persian, Syriac, N'Ko, Mongolian, the Indic scripts): there it is spelling (می‌خواهم);
 * - one variation selector right after a visible character (❤️, a CJK variant, Mongolian's free
 *   variation selectors); a second one in a row, or one after nothing, carries no glyph but data.
 */
const FLAG_TAGS = String.raw`\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}`;
const PICTO = String.raw`\p{Extended_Pictographic}`;
const EMOJI_ZWJ = String.raw`(?<=${PICTO}[\u{1F3FB}-\u{1F3FF}]?\uFE0F?)\u200D(?=${PICTO})`;
const JOINING = String.raw`[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]`;
/** Marks that show: an invisible one between a letter and what follows makes no context. */
const MARK = String.raw`[\p{M}--\p{Default_Ignorable_Code_Point}]`;
const SELECTOR = String.raw`[\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u180B-\u180D\u180F]`;
/** A joining script's characters that show: not its format characters, selectors or fillers. */
const VISIBLE_JOINING = String.raw`[${JOINING}--\p{Cf}--\p{Default_Ignorable_Code_Point}]`;
/** The letter (or digit) before a non-joiner, behind the marks on it: not itself a mark. */
const JOINING_BASE = String.raw`[${VISIBLE_JOINING}--\p{M}]`;
const LETTER_ZWNJ = String.raw`(?<=${JOINING_BASE}${MARK}*)\u200C(?=${VISIBLE_JOINING})`;
const BASE = String.raw`[^\s\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cc}]`;
const KEPT_SELECTOR = `(?<=${BASE}${MARK}*)${SELECTOR}`;
const KEPT_INVISIBLE = `${FLAG_TAGS}|${EMOJI_ZWJ}|${LETTER_ZWNJ}|${KEPT_SELECTOR}`;
const INVISIBLE_RUN = new RegExp(`(${KEPT_INVISIBLE})|${INVISIBLE.source}`, 'gv');
/**
 * The invisible characters no context keeps (all but the joiners, the selectors and the tag
 * characters), removed first, so the rule above reads a kept one's neighbours as they will show;
 * and a non-joiner stands only between letters that show. A joining script's own format
 * characters (the Arabic number signs U+0600–0605 and marks U+0890–0891, U+061C, Syriac's
 * abbreviation mark) and Mongolian's selectors counted as its letters: a non-joiner beside one was
 * kept, then stood alone once it was removed; and one between the non-joiner and a letter made
 * the letters join once both were gone.
 */
const NEVER_KEPT = new RegExp(
  String.raw`[${INVISIBLE.source}--[\u200C\u200D]--${SELECTOR}--[\u{E0020}-\u{E007F}]]`,
  'gv',
);

/**
 * `text` without invisible characters (see INVISIBLE), but for those that are part of what it shows
 * (KEPT_INVISIBLE). Whatever it is given, the visible text stays as it was.
 */
export function removeInvisible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  return text
    .replace(NEVER_KEPT, '')
    .replace(INVISIBLE_RUN, (_match, kept: string | undefined) => kept ?? '');
}

/** A UTF-16 surrogate without its partner: not a character; no file can store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` as mem keeps it: lone surrogates become U+FFFD (what writing them as UTF-8 makes of them
 * anyway, so what is journaled is what the note holds), CR/CRLF and U+2028/2029 become `\n`,
 * terminal sequences and control and BiDi-override characters are removed, and so are invisible
 * ones (removeInvisible).
 */
export function sanitizeText(text: string): string {
  return removeInvisible(
    text
      .replace(LONE_SURROGATE, '\ufffd')
      .replace(/\r\n?|[\u2028\u2029]/g, '\n')
      .replace(TERMINAL, '')
      .replace(CONTROLS, ''),
  );
}
