// Where each link of a note is written, as recall's backlinks read it: the section that holds it
// and the anchor it names. The cache saves both with the link rows (table-file.ts), so the notes
// that link to a recall's strongest hit need not be decoded to find which of their sections links:
// at 100,000 notes that decoding was a fifth of a recall's CPU.
import type { LinkRef, Note } from '../../core/types.js';
import { linkableAnchor } from '../../vault/links/link-name.js';
import { sectionSpans } from '../saved-note.js';

/** A link's place in its note. */
export interface LinkPlace {
  /**
   * The position among the note's sections of the one the link counts as written in (the first
   * whose anchor is that of the innermost section holding it, as sectionByAnchor picks it), which
   * is also the position of its document in the text index; NO_SECTION when the note has none.
   */
  source: number;
  /** The anchor the link names, without its `#`; undefined when it names none (or an empty one) */
  subpath: string | undefined;
}

/** A link to a note, by the note it is written in and its place there. */
export interface LinkingPlace {
  from: string;
  place: LinkPlace;
}

/** LinkPlace.source of a link in a note without sections (packed as PACKED_NONE) */
export const NO_SECTION = -1;
/** The packed source of NO_SECTION: a position past 0xfffe packs as UNKNOWN_PLACE, so none is 0xffff */
const PACKED_NONE = 0xffff;
/** A packed place that says nothing: the linking note must be decoded to know it */
export const UNKNOWN_PLACE = -1;
/** Most distinct anchors a save packs (15 bits); the links naming others are saved as unknown */
const MOST_SUBPATHS = 0x7fff;

/** Anchor of the innermost section holding the link; `''` for frontmatter links and links outside any. */
export function sectionOf(
  sections: ReadonlyArray<{ anchor: string; start: number; end: number }>,
  link: LinkRef,
): string {
  if (link.kind === 'frontmatter') return '';
  let best: { anchor: string; start: number; end: number } | undefined;
  for (const section of sections) {
    if (section.start > link.start || link.start >= section.end) continue;
    if (!best || section.end - section.start < best.end - best.start) best = section;
  }
  return best?.anchor ?? '';
}

/**
 * The position of the section an anchor names among `anchors` (a note's, in order), as a link to
 * it resolves: exact, then ignoring case, then the innermost heading of `H1#H2`, then with the
 * characters a link cannot hold replaced; the first section when none matches; -1 for no sections.
 */
export function pickAnchor(anchors: readonly string[], anchor: string | undefined): number {
  const wanted = (anchor ?? '').replace(/^#/, '');
  const lower = wanted.toLowerCase();
  const innermost = lower.split('#').pop();
  let k = anchors.indexOf(wanted);
  if (k === -1) k = anchors.findIndex((a) => a.toLowerCase() === lower);
  if (k === -1) k = anchors.findIndex((a) => a.toLowerCase() === innermost);
  if (k === -1) k = anchors.findIndex((a) => linkableAnchor(a).toLowerCase() === lower);
  return k === -1 && anchors.length > 0 ? 0 : k;
}

/**
 * Each of the note's links from the `from`-th on: the anchor of the innermost section holding it,
 * and the position that anchor picks (a note from the cache decodes no section for it).
 */
export function placedLinks(note: Note, from = 0): Array<{ section: string; source: number }> {
  const spans = sectionSpans(note);
  const anchors = spans.map((span) => span.anchor);
  // Most of a note's links are in a few sections: each is picked once.
  const picked = new Map<string, number>();
  return note.links.slice(from).map((link) => {
    const section = sectionOf(spans, link);
    let source = picked.get(section);
    if (source === undefined) {
      source = pickAnchor(anchors, section);
      picked.set(section, source);
    }
    return { section, source };
  });
}

/** The place of each of the note's links, in order. */
export function linkPlaces(note: Note): LinkPlace[] {
  return placedLinks(note).map(({ source }, i) => ({
    source,
    subpath: subpathOf(note.links[i] as LinkRef),
  }));
}

/**
 * Whether a link's place, picked among `before`'s anchors, is what the same anchor picks once
 * sections are appended after them: an exact match stays the first one; a fallback pick (no
 * section of that anchor, or none at all) may land on an appended section.
 */
export function pickKept(source: number, section: string, before: readonly string[]): boolean {
  return source !== NO_SECTION && before[source] === section.replace(/^#/, '');
}

/** The anchor a link names, without its `#`; undefined for none or an empty one. */
export function subpathOf(link: LinkRef): string | undefined {
  return link.subpath?.replace(/^#/, '') || undefined;
}

/**
 * Places packed one per link in an Int32Array: the anchor named (its number in `subpaths` + 1, 0
 * for none) in bits 16–30, the source in bits 0–15; UNKNOWN_PLACE for a place that does not fit.
 */
export class PlacePacker {
  readonly subpaths: string[] = [];
  private readonly numbers = new Map<string, number>();

  pack(place: LinkPlace | undefined): number {
    if (!place || place.source > 0xfffe || place.source < NO_SECTION) return UNKNOWN_PLACE;
    let sub = 0;
    if (place.subpath !== undefined) {
      sub = this.numbers.get(place.subpath) ?? 0;
      if (sub === 0) {
        if (this.subpaths.length >= MOST_SUBPATHS) return UNKNOWN_PLACE;
        this.subpaths.push(place.subpath);
        sub = this.subpaths.length;
        this.numbers.set(place.subpath, sub);
      }
    }
    return (sub << 16) | (place.source === NO_SECTION ? PACKED_NONE : place.source);
  }
}

/** A packed place read back with the anchors it was packed with; undefined when unknown. */
export function unpackPlace(packed: number, subpaths: readonly string[]): LinkPlace | undefined {
  if (packed === UNKNOWN_PLACE) return undefined;
  const sub = packed >>> 16;
  const source = packed & 0xffff;
  return {
    source: source === PACKED_NONE ? NO_SECTION : source,
    subpath: sub === 0 ? undefined : subpaths[sub - 1],
  };
}

/** Whether every packed place is unknown or names an anchor of `subpaths`: a damaged table is not trusted. */
export function placesFit(places: Int32Array, subpaths: readonly string[]): boolean {
  for (const packed of places) {
    if (packed !== UNKNOWN_PLACE && (packed < 0 || packed >>> 16 > subpaths.length)) return false;
  }
  return true;
}
