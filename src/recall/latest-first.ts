import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';

/**
 * Words that ask about the present: "where do I live now", "我现在住在哪里". They say when, not what,
 * so they leave the text query (as rare words they would otherwise pick whichever entry repeats
 * them), and the newest version of a fact is wanted.
 */
const PRESENT_EN =
  /(?<![\p{L}\p{N}])(?:now|nowadays|currently|current|these days|at the moment|still|anymore|any more|lately)(?![\p{L}\p{N}])/giu;
// 还 only as "still" (还在, 还是, 还住): 还书 is returning a book.
const PRESENT_ZH = /现在|目前|如今|最近|这些天|这阵子|还(?=在|是|住|有|做|用|喜欢|养|会)/g;

/** How much more the recency prior weighs for a question about the present. */
export const PRESENT_RECENCY = 4;

export function readPresent(query: string): { text: string; present: boolean } {
  const text = query.replace(PRESENT_EN, ' ').replace(PRESENT_ZH, ' ');
  return { text, present: text !== query };
}

interface Version {
  note: Note;
  section: Section;
  text: number;
  /** The query terms it matched */
  matched: Set<string>;
}

/** A text hit below this share of the best one is not a version of what was asked. */
const VERSION_FLOOR = 0.3;
/** Two hits are versions of one thing when this share of the query terms they matched is shared. */
const SAME_TERMS = 0.6;

function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared || 1);
}

/**
 * Several entries that match the same words of a question are versions of the same thing ("I
 * live in Hangzhou", "I live in Suzhou now", "I live in Shanghai"): the newest comes first. Their
 * text scores are dealt out again, best to newest, so the rest of the ranking is unchanged.
 */
export function newestVersionsFirst(hits: Version[]): void {
  // Best first: each hit joins the first group whose best hit matched mostly the same terms.
  const groups: Version[][] = [];
  for (const hit of hits) {
    if (hit.text < VERSION_FLOOR || hit.note.layer !== 'episodes' || !hit.section.date) continue;
    const group = groups.find((g) => overlap(g[0]?.matched ?? new Set(), hit.matched) >= SAME_TERMS);
    if (group) group.push(hit);
    else groups.push([hit]);
  }
  for (const group of groups) {
    if (group.length < 2) continue;
    const scores = group.map((h) => h.text).sort((a, b) => b - a);
    // Entries of one vault share its zone, so their day and clock time order them.
    const when = (hit: Version) => `${hit.section.date}T${hit.section.time ?? '12:00'}`;
    const newest = [...group].sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0));
    newest.forEach((hit, i) => {
      hit.text = scores[i] ?? hit.text;
    });
  }
}

/**
 * With `all`, a superseded note is a candidate too; it never outranks the note that supersedes it
 * (frontmatter `superseded_by`) when both are hits.
 */
export function belowSuccessors(
  index: VaultIndex,
  hits: Array<{ path: string; score: number; reasons: string[] }>,
): void {
  const best = new Map<string, number>();
  for (const hit of hits) best.set(hit.path, Math.max(best.get(hit.path) ?? 0, hit.score));
  for (const hit of hits) {
    for (const edge of index.graph.outEdges(hit.path)) {
      if (edge.link.property !== 'superseded_by' || !edge.to) continue;
      const successor = best.get(edge.to);
      if (successor !== undefined && hit.score >= successor) {
        hit.score = Math.round(successor * 0.9 * 10_000) / 10_000;
        hit.reasons.push(`superseded by [[${index.linkText(edge.to)}]]`);
      }
    }
  }
}
