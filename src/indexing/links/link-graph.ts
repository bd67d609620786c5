import { MemError } from '../../core/errors.js';
import type { Edge, LinkRef, Note } from '../../core/types.js';
import {
  basenameOf,
  compareStrings,
  dirnameOf,
  foldPath,
  PathIndex,
  resolveLink,
} from '../../vault/links/resolve-link.js';
import { sectionSpans } from '../saved-note.js';
import {
  type LinkingPlace,
  type LinkPlace,
  pickAnchor,
  pickKept,
  placedLinks,
  subpathOf,
} from './link-places.js';

/** An edge as held inside the graph: mutable target, plus the key that finds it when files appear. */
interface EdgeRecord {
  readonly from: string;
  to: string | undefined;
  readonly link: LinkRef;
  readonly section: string;
  /** Its place in its note (link-places.ts): where its section's anchor picks, among the note's */
  source: number;
  /** Folded file name of the link target (`note` for `[[x/Note]]`); `''` for same-note links */
  readonly name: string;
}

/**
 * Out-links, backlinks and unresolved links of the vault, kept up to date one note at a time.
 * Adding a file re-resolves only the links that name it, found through a map by file name,
 * so an update never rescans the whole graph.
 */
export class LinkGraph {
  private readonly index = new PathIndex();
  /** Out-edges of each note, in source order */
  private readonly outgoing = new Map<string, EdgeRecord[]>();
  /** Folded target file name → edges naming it, resolved or not */
  private readonly byName = new Map<string, Set<EdgeRecord>>();
  /** Target path → edges resolved to it */
  private readonly incoming = new Map<string, Set<EdgeRecord>>();
  private readonly dangling = new Set<EdgeRecord>();

  /**
   * Adds a note or replaces its out-links; a new path may change where other notes' links point.
   * `previous`, the version held when `note` is it with entries appended (vault-index.ts): the
   * links it shares with it keep their edges, and only the appended ones are added, so a day's
   * write costs the links it appends, not every link of the day.
   */
  upsert(note: Note, previous?: Note): void {
    const kept = this.outgoing.get(note.path);
    if (previous && kept && this.appendTo(kept, previous, note)) return;
    this.dropEdges(note.path);
    if (this.index.add(note.path)) this.reresolveNamed(note.path);
    this.attach(note.path, edgesOf(note));
  }

  /**
   * Adds the links `note` appends to `previous` (whose edges are `kept`), keeping the others; false
   * (nothing done) when `note` is not `previous` with links and sections appended.
   */
  private appendTo(kept: EdgeRecord[], previous: Note, note: Note): boolean {
    if (
      kept.length !== previous.links.length ||
      kept.at(-1)?.link !== previous.links.at(-1) ||
      !appendedLinks(previous, note)
    )
      return false;
    const before = sectionSpans(previous);
    const after = sectionSpans(note);
    if (!appendedSections(before, after)) return false;
    // A kept link sits in the section it sat in; the one its anchor picks moves only when that was
    // a fallback (no section of that anchor, or none at all): an appended one may take it.
    const anchorsBefore = before.map((span) => span.anchor);
    const anchors = after.map((span) => span.anchor);
    for (const edge of kept) {
      if (!pickKept(edge.source, edge.section, anchorsBefore))
        edge.source = pickAnchor(anchors, edge.section);
    }
    for (const edge of edgesOf(note, kept.length)) {
      kept.push(edge);
      if (edge.name !== '') addTo(this.byName, edge.name, edge);
      edge.to = resolveLink(edge.link.target, edge.from, this.index);
      this.track(edge);
    }
    return true;
  }

  /** The graph of many notes at once: every path first, so each link is resolved once, against them all. */
  static fromNotes(notes: readonly Note[]): LinkGraph {
    const graph = new LinkGraph();
    for (const note of notes) graph.index.add(note.path);
    // Where a link points depends on its target and the linking note's folder alone, and no path
    // comes or goes meanwhile: a vault's links name the same few notes from the same few folders,
    // so each pair is resolved once (at 100,000 notes, 1.2 s of a 14 s open went to resolving).
    const resolved = new Map<string, string | undefined>();
    const resolve = (target: string, from: string): string | undefined => {
      if (target === '') return resolveLink(target, from, graph.index);
      const key = `${dirnameOf(from)}\u0000${target}`;
      if (resolved.has(key)) return resolved.get(key);
      const to = resolveLink(target, from, graph.index);
      resolved.set(key, to);
      return to;
    };
    for (const note of notes) graph.attach(note.path, edgesOf(note), resolve);
    return graph;
  }

  /** Adds a file that links can point to but that is not a note (an image, a PDF). */
  addFile(path: string): void {
    if (this.index.add(path)) this.reresolveNamed(path);
  }

  /** Drops a note (or file) and its out-links; links that pointed to it are resolved again. */
  remove(path: string): void {
    this.dropEdges(path);
    this.outgoing.delete(path);
    if (!this.index.remove(path)) return;
    // Removing a file only affects links that resolved to it: the order among the other
    // candidates does not depend on which files exist.
    for (const edge of [...(this.incoming.get(path) ?? [])]) this.retarget(edge);
  }

  /** A rename is a delete plus a create, as on disk; `note.path` must be `to`. */
  rename(from: string, to: string, note: Note): void {
    if (note.path !== to) {
      throw new MemError(
        'INVALID_ARGUMENT',
        `mem: rename ${from} -> ${to}: the note given has path ${note.path}`,
      );
    }
    this.remove(from);
    this.upsert(note);
  }

  /** The note's links in source order, each with where it points (or `to` absent when unresolved). */
  outEdges(path: string): Edge[] {
    return (this.outgoing.get(path) ?? []).map(toEdge);
  }

  /** Where each of the note's links points, in source order (undefined: unresolved); a save keeps these. */
  outTargets(path: string): Array<string | undefined> {
    return (this.outgoing.get(path) ?? []).map((edge) => edge.to);
  }

  /** Links resolved to `path` (its own same-note links included), by linking note then offset. */
  backlinks(path: string): Edge[] {
    return [...(this.incoming.get(path) ?? [])].sort(bySource).map(toEdge);
  }

  /** Where each link resolved to `path` is written (its own same-note links included), by linking note then offset. */
  linksTo(path: string): LinkingPlace[] {
    return [...(this.incoming.get(path) ?? [])].sort(bySource).map((edge) => ({
      from: edge.from,
      place: { source: edge.source, subpath: subpathOf(edge.link) },
    }));
  }

  /** The place of each of the note's links, in source order. */
  outPlaces(path: string): LinkPlace[] {
    return (this.outgoing.get(path) ?? []).map((edge) => ({
      source: edge.source,
      subpath: subpathOf(edge.link),
    }));
  }

  /** Links that point to no file, by linking note then offset. */
  unresolved(): Edge[] {
    return [...this.dangling].sort(bySource).map(toEdge);
  }

  /**
   * Whether an unresolved link may name a file of folded name `folded` (`note.md` or `note`, as
   * foldPath gives a link target's file name): false only when none does.
   */
  mayBeNamedUnresolved(folded: string): boolean {
    for (const edge of this.byName.get(folded) ?? []) if (edge.to === undefined) return true;
    return false;
  }

  /** Distinct notes that `path` links to or that link to it, itself excluded, sorted. */
  neighbours(path: string): string[] {
    const found = new Set<string>();
    for (const edge of this.outgoing.get(path) ?? []) if (edge.to !== undefined) found.add(edge.to);
    for (const edge of this.incoming.get(path) ?? []) found.add(edge.from);
    found.delete(path);
    return [...found].sort(compareStrings);
  }

  has(path: string): boolean {
    return this.index.has(path);
  }

  /** Every note and file path known to the graph, sorted. */
  paths(): string[] {
    return this.index.paths();
  }

  /** Where `target` (a link's path part) points from the note at `fromPath`, as of now. */
  resolve(target: string, fromPath: string): string | undefined {
    return resolveLink(target, fromPath, this.index);
  }

  private attach(
    path: string,
    records: EdgeRecord[],
    resolve: (target: string, from: string) => string | undefined = (target, from) =>
      resolveLink(target, from, this.index),
  ): void {
    this.outgoing.set(path, records);
    for (const edge of records) {
      if (edge.name !== '') addTo(this.byName, edge.name, edge);
      edge.to = resolve(edge.link.target, edge.from);
      this.track(edge);
    }
  }

  private dropEdges(path: string): void {
    for (const edge of this.outgoing.get(path) ?? []) {
      this.untrack(edge);
      if (edge.name !== '') deleteFrom(this.byName, edge.name, edge);
    }
    this.outgoing.set(path, []);
  }

  /** A new file can take over links naming it: an unresolved one, or one that found a farther duplicate. */
  private reresolveNamed(path: string): void {
    const name = foldPath(basenameOf(path));
    // `[[Note]]` is looked up as `note`, then as `note.md`: a new `Note.md` concerns both spellings.
    const names = name.endsWith('.md') ? [name, name.slice(0, -3)] : [name];
    for (const key of names) {
      for (const edge of [...(this.byName.get(key) ?? [])]) this.retarget(edge);
    }
  }

  private retarget(edge: EdgeRecord): void {
    const to = resolveLink(edge.link.target, edge.from, this.index);
    if (to === edge.to) return;
    this.untrack(edge);
    edge.to = to;
    this.track(edge);
  }

  private track(edge: EdgeRecord): void {
    if (edge.to === undefined) this.dangling.add(edge);
    else addTo(this.incoming, edge.to, edge);
  }

  private untrack(edge: EdgeRecord): void {
    if (edge.to === undefined) this.dangling.delete(edge);
    else deleteFrom(this.incoming, edge.to, edge);
  }
}

/**
 * Whether `note`'s links are `previous`'s (the same objects, in order, as an append that reads
 * only its own text makes them, appendToNote; or equal copies, as a note decoded again from the
 * cache gives them) and then more. The links shared keep where they point and the section they
 * are in: an append adds sections after them, and the one it widens keeps its anchor.
 */
export function appendedLinks(previous: Note, note: Note): boolean {
  const before = previous.links;
  const after = note.links;
  if (after.length < before.length || previous.path !== note.path) return false;
  for (let i = 0; i < before.length; i++)
    if (!sameLink(before[i] as LinkRef, after[i] as LinkRef)) return false;
  return true;
}

type Span = { anchor: string; start: number; end: number };

/**
 * Whether a note's sections (`after`) are its previous version's (`before`), then more: each by its
 * anchor and start, the last of them perhaps longer (an append widens it). A link kept then sits
 * in the section it sat in.
 */
function appendedSections(before: readonly Span[], after: readonly Span[]): boolean {
  if (after.length < before.length) return false;
  for (let i = 0; i < before.length; i++) {
    const a = before[i] as Span;
    const b = after[i] as Span;
    if (a.anchor !== b.anchor || a.start !== b.start || (a.end !== b.end && i < before.length - 1))
      return false;
  }
  return true;
}

/** Whether two links are one: the same object, or copies with every field alike. */
function sameLink(a: LinkRef, b: LinkRef): boolean {
  if (a === b) return true;
  const keys = Object.keys(a) as Array<keyof LinkRef>;
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** The note's links from the `from`-th on, as edges not yet resolved. */
function edgesOf(note: Note, from = 0): EdgeRecord[] {
  return placedLinks(note, from).map(({ section, source }, i): EdgeRecord => {
    const link = note.links[from + i] as LinkRef;
    return { from: note.path, to: undefined, link, section, source, name: nameOf(link.target) };
  });
}

function nameOf(target: string): string {
  return target === '' ? '' : foldPath(basenameOf(target));
}

function toEdge(edge: EdgeRecord): Edge {
  const out: Edge = { from: edge.from, link: edge.link, section: edge.section };
  if (edge.to !== undefined) out.to = edge.to;
  return out;
}

function bySource(a: EdgeRecord, b: EdgeRecord): number {
  return compareStrings(a.from, b.from) || a.link.start - b.link.start;
}

function addTo<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  if (set) set.add(value);
  else {
    // Not `new Set([value])`: building a Set from an array goes through the iterator protocol,
    // and a graph makes one per note and per link name.
    const created = new Set<T>();
    created.add(value);
    map.set(key, created);
  }
}

function deleteFrom<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
