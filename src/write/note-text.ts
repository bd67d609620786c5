// The text a caller gives for a note's body, as mem writes it.
import { MemError } from '../core/errors.js';
import { sanitizeText } from '../vault/markdown/sanitize-text.js';

/** Text as mem keeps it (see sanitizeText), without trailing line breaks; NUL is refused, not dropped. */
export function cleanNoteText(text: unknown, label: string, allowEmpty: boolean): string {
  if (typeof text !== 'string') throw new MemError('INVALID_ARGUMENT', `${label}: the text must be a string`);
  if (text.includes('\0')) throw new MemError('INVALID_ARGUMENT', `${label}: the text holds a NUL character`);
  const clean = sanitizeText(text).replace(/\n+$/, '');
  if (!allowEmpty && clean.trim() === '') throw new MemError('INVALID_ARGUMENT', `${label}: no text to add`);
  return clean;
}
