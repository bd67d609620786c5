import fc from 'fast-check';

// Shared by the secret generators (secret-phrases, secret-numbers): the disguises people and attackers use.

/**
 * Zero-width space and joiners, word joiner, direction marks and overrides, soft hyphen, a tag
 * character, BOM, and default-ignorable ones that are not format characters: the grapheme joiner, a
 * Hangul filler, a variation selector.
 */
export const INVISIBLES = [
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
export const stripInvisible = (text: string) =>
  text.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '');

/** Full-width forms of ASCII: `ｐａｓｓｗｏｒｄ`, `４１１１`, the ideographic space. */
export const fullWidth = (text: string) =>
  text.replace(/[!-~ ]/g, (c) => (c === ' ' ? '\u3000' : String.fromCharCode(c.charCodeAt(0) + 0xfee0)));

/** A run of `min` to `max` random digits. */
export const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));

/**
 * An environment variable named where a value would go (`password $DB_PASS0`), which redaction keeps
 * by design: `$`, then a name with a word in it (three capitals in a row). `$A0A00` is no name.
 */
export const isVariableName = (value: string) => /^\$(?=[A-Z0-9_]*[A-Z]{3})[A-Z_][A-Z0-9_]*$/.test(value);
