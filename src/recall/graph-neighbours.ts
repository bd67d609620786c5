import type { Note, Section } from '../core/types.js';
import { type LinkingPlace, NO_SECTION } from '../indexing/links/link-places.js';
import type { TextHitSource } from '../indexing/text/text-index.js';
import { processTerm, tokenize } from '../indexing/text/tokenize.js';
import type { VaultIndex } from '../indexing/vault-index.js';

export interface Neighbour {
  /** Its section's id and date */
  id: string;
  date: string | undefined;
  /** Its section and note in hand, or what the text index stores of it (a linking note is not decoded) */
  found: { note: Note; section: Section } | { hit: TextHitSource };
  /** 0..1: how directly the link ties the two (a link from or to this very section counts most) */
  weight: number;
  reason: string;
  /** An entry next to the seed on its day (not a link): context of the seed, not a memory of its own */
  adjacent?: boolean;
}

/** How strongly an episode entry brings in the entry just before or after it; halved per further step. */
const ADJACENT_WEIGHT = 0.5;
/** How many entries on each side: a reply often comes two or three turns after the question. */
const ADJACENT_STEPS = 3;
/**
 * Links count a quarter of a neighbouring entry: the next turn of a conversation is usually about
 * the same thing, while a note links to many things it is not about.
 */
const LINK_WEIGHT = 0.25;

/**
 * The entries on either side of an episode entry: a question is often answered by the reply to the
 * turn that matched it, or the turn that led to it, a little less the further away.
 */
function adjacentEntries(index: VaultIndex, note: Note, section: Section): Neighbour[] {
  if (section.kind !== 'block' || note.layer !== 'episodes') return [];
  // The entries around it, found from its place among the note's sections: a day's note holds
  // hundreds, and copying its entries out for each seed of each recall was most of what this cost.
  // A day from the cache decodes only these, not every entry of the day.
  const { before, after } = index.entriesAround(note, section, ADJACENT_STEPS);
  const found: Neighbour[] = [];
  for (let step = 1; step <= ADJACENT_STEPS; step++) {
    const weight = ADJACENT_WEIGHT * 0.5 ** (step - 1);
    const entryBefore = before[step - 1];
    const entryAfter = after[step - 1];
    // A question just before gives the context of the match; anything else counts for what it adds.
    if (entryBefore)
      found.push(
        neighbour(entryBefore, weight * (QUESTION.test(entryBefore.text) ? 1 : adds(index, entryBefore))),
      );
    if (entryAfter) found.push(neighbour(entryAfter, weight * adds(index, entryAfter)));
  }
  return found;

  function neighbour(s: Section, weight: number): Neighbour {
    return inHand(note, s, weight, `next to ${section.anchor}`, true);
  }
}

const QUESTION = /[?？]/;
/** A word in at most this share of the sections (and at least 3 of them) is one that says something. */
const RARE_SHARE = 0.01;
/** Rare words at which an entry counts fully as a neighbour; one with none counts a quarter. */
const RARE_WORDS = 2;

/**
 * What an entry adds, 0.25..1, by how many rare words it holds: "That sounds nice, tell me more."
 * holds none and counts a quarter (less at one step than a detail two steps away); "A sunset
 * over the lake, in oils." counts fully. Kept until the vault changes.
 */
function adds(index: VaultIndex, section: Section): number {
  // One memo per version of the vault: word counts change with every note.
  const added = index.view('recall:adds', () => new WeakMap<Section, number>());
  const known = added.get(section);
  if (known !== undefined) return known;
  const limit = Math.max(3, index.text.size * RARE_SHARE);
  let rare = 0;
  for (const term of new Set(tokenize(section.text))) {
    const processed = processTerm(term);
    if (processed && index.text.documentFrequency(processed) <= limit && ++rare >= RARE_WORDS) break;
  }
  const value = 0.25 + 0.75 * Math.min(1, rare / RARE_WORDS);
  added.set(section, value);
  return value;
}

/** Most notes whose backlinks are kept between recalls (until the vault changes). */
const BACKLINK_NOTES = 1024;

/**
 * The links to a note, each with the note it is written in, the section there and the anchor it
 * names (the graph's order), read from the saved link rows without decoding the linking notes. A
 * recall's 20 seeds are often entries of one daily note, which hundreds of insights cite, and a
 * person's note is linked from hundreds of days: finding each link's section once per seed was most
 * of a recall's graph step at 100,000 notes. Kept as places, not notes: a day of recalls would
 * otherwise hold every note that links anywhere, past the vault's bound on decoded notes.
 */
function backlinks(index: VaultIndex, path: string): Backlink[] {
  const kept = index.view('recall:backlinks', () => new Map<string, Backlink[]>());
  let found = kept.get(path);
  if (found === undefined) {
    found = index.graph.linksTo(path).map(({ from, place }) => ({ from, place, hit: undefined }));
    if (kept.size >= BACKLINK_NOTES) kept.clear();
    kept.set(path, found);
  }
  return found;
}

/** A link to a note, and what the text index stores of the section it is written in, once looked up. */
interface Backlink extends LinkingPlace {
  hit: TextHitSource | null | undefined;
}

/**
 * What the text index stores of the section a link is written in, kept with the link while its
 * note's backlinks are (a WeakMap beside them cost the garbage collector more than the lookups).
 */
function sourceOf(index: VaultIndex, link: Backlink): TextHitSource | undefined {
  if (link.hit === undefined) link.hit = index.text.sectionSource(link.from, link.place.source) ?? null;
  return link.hit ?? undefined;
}

/** A neighbour whose section is in hand (one literal: a spread copy cost a third of the graph step). */
const inHand = (
  note: Note,
  section: Section,
  weight: number,
  reason: string,
  adjacent = false,
): Neighbour => ({
  id: section.id,
  date: section.date,
  found: { note, section },
  weight,
  reason,
  adjacent,
});

/**
 * Links and backlinks of one section, and for an episode entry its neighbouring entries: the
 * routes by which a hit brings in related memories.
 */
export function graphNeighbours(index: VaultIndex, note: Note, section: Section): Neighbour[] {
  const found: Neighbour[] = adjacentEntries(index, note, section);
  const from = index.linkText(note.path);
  const linkedFrom = `linked from [[${from}]]`;
  for (const edge of index.graph.outEdges(note.path)) {
    if (!edge.to || edge.to === note.path) continue;
    const target = index.sectionByAnchor(edge.to, edge.link.subpath);
    if (!target) continue;
    const weight =
      LINK_WEIGHT * (edge.section === section.anchor ? 0.8 : 0.4) * (edge.link.subpath ? 1 : 0.75);
    found.push(inHand(target.note, target.section, weight, linkedFrom));
  }
  const linksTo = `links to [[${from}]]`;
  for (const link of backlinks(index, note.path)) {
    const { from: linkingPath, place } = link;
    const { source, subpath } = place;
    // A link from the note itself, or one to another part of this note, says little about this section.
    if (linkingPath === note.path || source === NO_SECTION || (subpath && subpath !== section.anchor))
      continue;
    const weight = LINK_WEIGHT * (subpath ? 0.8 : 0.5);
    // The section's stored fields rank it; only a section shown is decoded (Candidate).
    const hit = sourceOf(index, link);
    if (hit) {
      found.push({ id: hit.id, date: hit.date, found: { hit }, weight, reason: linksTo, adjacent: false });
      continue;
    }
    const linking = index.sectionAt(linkingPath, source);
    if (linking) found.push(inHand(linking.note, linking.section, weight, linksTo));
  }
  return found;
}
