import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';

export interface Neighbour {
  note: Note;
  section: Section;
  /** 0..1: how directly the link ties the two (a link from or to this very section counts most) */
  weight: number;
  reason: string;
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
function adjacentEntries(note: Note, section: Section): Neighbour[] {
  if (section.kind !== 'block' || note.layer !== 'episodes') return [];
  const blocks = note.sections.filter((s) => s.kind === 'block');
  const at = blocks.indexOf(section);
  const found: Neighbour[] = [];
  for (let step = 1; step <= ADJACENT_STEPS; step++) {
    const weight = ADJACENT_WEIGHT * 0.5 ** (step - 1);
    for (const s of [blocks[at - step], blocks[at + step]]) {
      if (s) found.push({ note, section: s, weight, reason: `next to ${section.anchor}` });
    }
  }
  return found;
}

/**
 * Links and backlinks of one section, and for an episode entry its neighbouring entries: the
 * routes by which a hit brings in related memories.
 */
export function graphNeighbours(index: VaultIndex, note: Note, section: Section): Neighbour[] {
  const found: Neighbour[] = adjacentEntries(note, section);
  const from = index.linkText(note.path);
  for (const edge of index.graph.outEdges(note.path)) {
    if (!edge.to || edge.to === note.path) continue;
    const target = index.sectionByAnchor(edge.to, edge.link.subpath);
    if (!target) continue;
    const weight =
      LINK_WEIGHT * (edge.section === section.anchor ? 0.8 : 0.4) * (edge.link.subpath ? 1 : 0.75);
    found.push({ ...target, weight, reason: `linked from [[${from}]]` });
  }
  for (const edge of index.graph.backlinks(note.path)) {
    if (edge.from === note.path) continue;
    const subpath = edge.link.subpath?.replace(/^#/, '');
    // A backlink to another part of this note says little about this section.
    if (subpath && subpath !== section.anchor) continue;
    const source = index.sectionByAnchor(edge.from, edge.section);
    if (!source) continue;
    found.push({ ...source, weight: LINK_WEIGHT * (subpath ? 0.8 : 0.5), reason: `links to [[${from}]]` });
  }
  return found;
}
