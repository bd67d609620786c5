import type { Section } from '../core/types.js';
import { processTerm, tokenize } from '../indexing/text/tokenize.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import type { SectionFacts } from '../vault/section-facts.js';

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

/**
 * A question in the present tense asks for how things are ("how do I get to work", "我住在哪里"),
 * where a question in the past asks for how they were ("where did I live in March", "我以前住在哪"):
 * only then is a newer entry that restates an older one in other words the answer (RESTATED).
 */
const PRESENT_TENSE_EN = /\b(?:do|does|am|is|are)\b/i;
const PAST_EN = /\b(?:did|was|were|had|used\s+to|ago|last|yesterday|before|ever)\b/i;
const CJK_TEXT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const PAST_ZH = /了|过|以前|之前|当时|那时|去年|上次|曾经|原来/;

export function asksCurrentState(query: string): boolean {
  if (readPresent(query).present) return true;
  if (CJK_TEXT.test(query)) return !PAST_ZH.test(query);
  return PRESENT_TENSE_EN.test(query) && !PAST_EN.test(query);
}

interface Version {
  /** What ranks it: its layer, day, time and speaker */
  facts: SectionFacts;
  /** Its section, read only to tell a restatement (its words); undefined when it cannot be read */
  read(): { section: Section } | undefined;
  text: number;
  /** The query terms it matched */
  matched: Set<string>;
}

/** A text hit below this share of the best one is not a version of what was asked. */
const VERSION_FLOOR = 0.3;
/** Two hits are versions of one thing when this share of the query terms they matched is shared. */
const SAME_TERMS = 0.6;
/**
 * Or a weaker hit restates a strong one: said by the same speaker, matching no query word the
 * other does not, and sharing this share of the shorter entry's own words, each word weighed by
 * its rarity (at least RESTATED_MIN words). "My commute: I take the bus to work" and "I take the
 * metro to work now" share take, work, minutes; the newer shares fewer words with "how do I
 * commute to work" and is still the answer. Greetings and chat ("Thanks, Mel! That's awesome")
 * share common words, which weigh little.
 */
const RESTATED = 0.4;
const RESTATED_MIN = 2;

function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared || 1);
}

/** How to tell that one entry restates another: its words, and what each word weighs. */
export interface Restatement {
  wordsOf(section: Section): ReadonlySet<string>;
  weight(term: string): number;
}

/**
 * Restatement over the vault's index: an entry's indexed words (Latin words, Chinese or Japanese
 * words and bigrams: one character says little), kept until the vault changes, each weighed by
 * its idf. Numbers are left out: they are the values that change between versions (40 minutes,
 * line 11), not the words that say which fact it is.
 */
export function restatementIn(index: VaultIndex): Restatement {
  const kept = index.view('recall:entry-words', () => new WeakMap<Section, Set<string>>());
  return {
    wordsOf(section) {
      let words = kept.get(section);
      if (words === undefined) {
        words = new Set();
        for (const token of tokenize(section.text)) {
          const term = processTerm(token);
          if (term && (term.length > 1 || /[a-z]/.test(term)) && !/^\d+$/.test(term)) words.add(term);
        }
        kept.set(section, words);
      }
      return words;
    },
    weight: (term) => index.text.plainIdf(term),
  };
}

function restates(first: Version, hit: Version, by: Restatement): boolean {
  if (hit.matched.size === 0 || first.facts.speaker !== hit.facts.speaker) return false;
  for (const term of hit.matched) if (!first.matched.has(term)) return false;
  const [firstSection, hitSection] = [first.read()?.section, hit.read()?.section];
  if (!firstSection || !hitSection) return false;
  const a = by.wordsOf(firstSection);
  const b = by.wordsOf(hitSection);
  let shared = 0;
  let sharedWeight = 0;
  let weightA = 0;
  let weightB = 0;
  for (const word of a) weightA += by.weight(word);
  for (const word of b) {
    const weight = by.weight(word);
    weightB += weight;
    if (a.has(word)) {
      shared++;
      sharedWeight += weight;
    }
  }
  return shared >= RESTATED_MIN && sharedWeight >= RESTATED * Math.min(weightA, weightB);
}

/** Entries of one vault share its zone, so their day and clock time order them. */
const when = (hit: Version) => `${hit.facts.date}T${hit.facts.time ?? '12:00'}`;

/**
 * Several entries that match the same words of a question are versions of the same thing ("I
 * live in Hangzhou", "I live in Suzhou now", "I live in Shanghai"): the newest comes first. Their
 * text scores are dealt out again, best to newest, so the rest of the ranking is unchanged. With
 * `restatement`, a weaker hit newer than every version it restates is lifted to their best score
 * (its recency then puts it first); the others keep theirs, so a false restatement costs a place,
 * not the older entry's rank.
 */
export function newestVersionsFirst(hits: Version[], restatement?: Restatement): void {
  // Best first: each hit joins the first group whose best hit matched mostly the same terms.
  const groups: Version[][] = [];
  const restating: Array<[Version, Version[]]> = [];
  for (const hit of hits) {
    if (hit.facts.layer !== 'episodes' || !hit.facts.date) continue;
    const strong = hit.text >= VERSION_FLOOR;
    const group = strong
      ? groups.find((g) => overlap(g[0]?.matched ?? new Set(), hit.matched) >= SAME_TERMS)
      : undefined;
    if (group) {
      group.push(hit);
      continue;
    }
    const restated = restatement
      ? groups.find((g) => g[0] !== undefined && restates(g[0], hit, restatement))
      : undefined;
    if (restated) restating.push([hit, restated]);
    else if (strong) groups.push([hit]);
  }
  for (const group of groups) {
    if (group.length < 2) continue;
    const scores = group.map((h) => h.text).sort((a, b) => b - a);
    const newest = [...group].sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0));
    newest.forEach((hit, i) => {
      hit.text = scores[i] ?? hit.text;
    });
  }
  for (const [hit, group] of restating) {
    if (group.every((version) => when(version) < when(hit)))
      hit.text = Math.max(hit.text, ...group.map((version) => version.text));
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
