import type { VaultIndex } from '../indexing/vault-index.js';
import type { Note, Section } from '../types.js';

export interface Neighbour {
  note: Note;
  section: Section;
  /** 0..1: how directly the link ties the two (a link from or to this very section counts most) */
  weight: number;
  reason: string;
}

/** Links and backlinks of one section: the route by which a hit brings in its neighbours. */
export function graphNeighbours(index: VaultIndex, note: Note, section: Section): Neighbour[] {
  const found: Neighbour[] = [];
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
