import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';

export interface Neighbour {
  note: Note;
  section: Section;
  /** 0..1: how directly the link ties the two (a link from or to this very section counts most) */
  weight: number;
  reason: string;
}

/** How strongly an episode entry brings in the entries just before and after it. */
const ADJACENT_WEIGHT = 0.5;

/**
 * The entries on either side of an episode entry: a question is often answered by the reply to the
 * turn that matched it, or the turn that led to it.
 */
function adjacentEntries(note: Note, section: Section): Neighbour[] {
  if (section.kind !== 'block' || note.layer !== 'episodes') return [];
  const blocks = note.sections.filter((s) => s.kind === 'block');
  const at = blocks.indexOf(section);
  return [blocks[at - 1], blocks[at + 1]]
    .filter((s): s is Section => s !== undefined)
    .map((s) => ({ note, section: s, weight: ADJACENT_WEIGHT, reason: `next to ${section.anchor}` }));
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
    const weight = (edge.section === section.anchor ? 0.8 : 0.4) * (edge.link.subpath ? 1 : 0.75);
    found.push({ ...target, weight, reason: `linked from [[${from}]]` });
  }
  for (const edge of index.graph.backlinks(note.path)) {
    if (edge.from === note.path) continue;
    const subpath = edge.link.subpath?.replace(/^#/, '');
    // A backlink to another part of this note says little about this section.
    if (subpath && subpath !== section.anchor) continue;
    const source = index.sectionByAnchor(edge.from, edge.section);
    if (!source) continue;
    found.push({ ...source, weight: subpath ? 0.8 : 0.5, reason: `links to [[${from}]]` });
  }
  return found;
}
