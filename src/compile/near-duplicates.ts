// Entries that say the same thing ("That sounds nice, tell me more.", said after every story) are
// worth one place in the context, not one each.

/** Word sets at least this alike (Jaccard) are the same thing said twice. */
const ALIKE = 0.8;
/** Longer texts are compared only when equal: two long entries that share 80% of words differ where it matters. */
const SHORT = 400;

const WORDS = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/gu;

/** A text's words, lower-cased (each CJK character a word), ignoring punctuation, links and the like. */
function wordsOf(text: string): Set<string> {
  const lower = text.toLowerCase().replace(CJK, (c) => ` ${c} `);
  return new Set(lower.match(WORDS) ?? []);
}

export class NearDuplicates {
  private readonly seen: Set<string>[] = [];
  private readonly long = new Set<string>();

  /** True when `text` says what an item already taken says. */
  repeats(text: string): boolean {
    if (text.length > SHORT) return this.long.has(longKey(text));
    const words = wordsOf(text);
    if (words.size === 0) return false;
    for (const other of this.seen) {
      // Jaccard ≥ 0.8 needs sizes within 0.8 of each other.
      if (Math.min(words.size, other.size) < ALIKE * Math.max(words.size, other.size)) continue;
      let shared = 0;
      for (const word of words) if (other.has(word)) shared++;
      if (shared / (words.size + other.size - shared) >= ALIKE) return true;
    }
    return false;
  }

  /** Remembers the text of an item taken. */
  add(text: string): void {
    if (text.length > SHORT) this.long.add(longKey(text));
    else this.seen.push(wordsOf(text));
  }
}

const longKey = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
