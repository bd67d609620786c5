// What mem removes or replaces in any text it keeps, before it is journaled or written.

/**
 * Characters removed from any text mem keeps: C0 controls but tab and newline (CR becomes a
 * newline first), DEL, C1 controls, and the BiDi embeddings, overrides and isolates
 * (U+202A–202E, U+2066–2069), which can make a line read in another order than it is stored.
 * NUL alone made git treat a day as a binary file.
 */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
/** Terminal sequences whole: CSI (`ESC [ … final`) and OSC (`ESC ] … BEL` or `ESC \`). */
const TERMINAL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;
/** A UTF-16 surrogate without its partner: not a character; no file can store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` as mem keeps it: lone surrogates become U+FFFD (what writing them as UTF-8 makes of them
 * anyway, so what is journaled is what the note holds), CR/CRLF and U+2028/2029 become `\n`,
 * terminal sequences and control and BiDi-override characters are removed.
 */
export function sanitizeText(text: string): string {
  return text
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(TERMINAL, '')
    .replace(CONTROLS, '');
}
