// The offline rule for consolidation: two insights whose words are nearly the same state one fact
// twice, so one supersedes the other (never a deletion).

import type { Note } from '../core/types.js';
import { tokenize } from '../indexing/text/tokenize.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { isRetired } from '../vault/section-facts.js';

/** Token sets at least this alike (Jaccard) say the same thing; 0.8 merged "likes tea" with "likes green tea". */
const ALIKE = 0.85;
/** Fewer tokens than this say too little to call two notes the same fact. */
const MIN_TOKENS = 4;
/** Past this many insights the pairwise check is left to reflect with a model. */
const MAX_INSIGHTS = 5000;

export interface DuplicatePair {
  keep: string;
  duplicate: string;
  similarity: number;
}

/** A note's words without its citations and links, which differ between two notes of one fact. */
function tokensOf(note: Note): Set<string> {
  const text = [note.title, ...note.sections.map((s) => s.text)]
    .join('\n')
    .replace(/!?\[\[[^\]\n]*\]\]/g, ' ')
    .replace(/\(\s*\)/g, ' ');
  return new Set(tokenize(text));
}

const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** The note that stays: more evidence, then more confidence, then the older, then the path. */
function better(a: Note, b: Note): boolean {
  const fa = a.frontmatter;
  const fb = b.frontmatter;
  if (count(fa['sources']) !== count(fb['sources'])) return count(fa['sources']) > count(fb['sources']);
  if (num(fa['confidence']) !== num(fb['confidence'])) return num(fa['confidence']) > num(fb['confidence']);
  const ca = String(fa['created'] ?? '');
  const cb = String(fb['created'] ?? '');
  if (ca !== cb) return ca !== '' && (cb === '' || ca < cb);
  return a.path < b.path;
}

/** Pairs of active insights that state the same fact; each note is in at most one pair. */
export function nearDuplicateInsights(index: VaultIndex): DuplicatePair[] {
  const notes = [...index.notes.values()]
    .filter((n) => n.layer === 'insights' && !isRetired(n))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .slice(0, MAX_INSIGHTS)
    .map((note) => ({ note, tokens: tokensOf(note) }))
    .filter((n) => n.tokens.size >= MIN_TOKENS);
  const used = new Set<string>();
  const pairs: DuplicatePair[] = [];
  for (const [i, a] of notes.entries()) {
    if (used.has(a.note.path)) continue;
    for (const b of notes.slice(i + 1)) {
      if (used.has(b.note.path)) continue;
      const small = Math.min(a.tokens.size, b.tokens.size);
      if (small < ALIKE * Math.max(a.tokens.size, b.tokens.size)) continue;
      let shared = 0;
      for (const t of a.tokens) if (b.tokens.has(t)) shared++;
      const similarity = shared / (a.tokens.size + b.tokens.size - shared);
      if (similarity < ALIKE) continue;
      const [keep, duplicate] = better(a.note, b.note) ? [a.note, b.note] : [b.note, a.note];
      pairs.push({ keep: keep.path, duplicate: duplicate.path, similarity });
      used.add(a.note.path);
      used.add(b.note.path);
      break;
    }
  }
  return pairs;
}
