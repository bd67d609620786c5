import { tokenize } from '../indexing/text/tokenize.js';

const BEFORE = 50;
const LENGTH = 180;

/**
 * A short window of `text` around the first place a query word appears, cut on code points so
 * CJK and emoji are never split. Without a match: the start of the text.
 */
export function makeSnippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= LENGTH) return flat;
  const lower = flat.toLowerCase();
  let at = -1;
  for (const term of tokenize(query)) {
    const index = lower.indexOf(term);
    if (index >= 0 && (at < 0 || index < at)) at = index;
  }
  // Convert the UTF-16 offset into a code-point offset.
  const startCp = at < 0 ? 0 : Math.max(0, Array.from(flat.slice(0, at)).length - BEFORE);
  const endCp = Math.min(chars.length, startCp + LENGTH);
  return `${startCp > 0 ? '…' : ''}${chars.slice(startCp, endCp).join('')}${endCp < chars.length ? '…' : ''}`;
}
