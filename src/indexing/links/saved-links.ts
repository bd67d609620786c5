import type { Edge, Note } from '../../core/types.js';
import {
  basenameOf,
  compareStrings,
  foldPath,
  PathIndex,
  resolveLink,
} from '../../vault/links/resolve-link.js';
import type { NoteTable } from '../note-table.js';
import { sectionSpans } from '../saved-note.js';
import { appendedLinks, LinkGraph } from './link-graph.js';
import { type LinkingPlace, type LinkPlace, linkPlaces, sectionOf, unpackPlace } from './link-places.js';

/**
 * The link graph as the cache saved it, in compressed-row form over the saved notes' slots:
 * `outStart[slot]…outStart[slot + 1]` are the slot's links in source order (`note.links`), each
 * `outTarget` the slot it resolved to, or -1 when unresolved. No object per note or per link.
 */
export interface SavedLinks {
  outStart: Int32Array;
  outTarget: Int32Array;
  /** Where each link is written in its note, packed (link-places.ts: PlacePacker) */
  outPlace: Int32Array;
  /** The anchors links name, as the packed places number them */
  subpaths: string[];
  /**
   * The folded file names (`note.md`, `note`) unresolved links name: a new note of such a name
   * would take them over. May name more than are still unresolved, never fewer.
   */
  dangling: string[];
}

/** What the vault's code asks of the link graph (LinkGraph's public methods). */
export type Graph = Pick<
  LinkGraph,
  | 'upsert'
  | 'addFile'
  | 'remove'
  | 'rename'
  | 'outEdges'
  | 'backlinks'
  | 'unresolved'
  | 'mayBeNamedUnresolved'
  | 'neighbours'
  | 'has'
  | 'paths'
  | 'resolve'
  | 'outTargets'
  | 'linksTo'
  | 'outPlaces'
>;

/**
 * The link graph of a vault opened from the cache: one hop of links is answered from the saved
 * arrays, decoding only the notes on that hop. A note written since (a chat turn's day note) is
 * held beside them, its links resolved when written, as long as no other note's link can change
 * where it points: a removal, or a new note whose name another note's link names or another file
 * has, makes the whole LinkGraph from every note once.
 */
export class SavedLinkGraph implements Graph {
  private graph: LinkGraph | undefined;
  /** The saved rows transposed (see backRows), made after SCANS_BEFORE_TRANSPOSE lookups */
  private back: { inStart: Int32Array; inFrom: Int32Array } | undefined;
  /** Lookups of linking notes answered by a scan of the saved rows so far */
  private scans = 0;
  private pathIndex: PathIndex | undefined;
  /** Notes written since the save: where each of their links points (undefined: unresolved) */
  private readonly written = new Map<string, Array<string | undefined>>();
  /** Target path → the written notes that link to it */
  private readonly writtenIn = new Map<string, Set<string>>();
  private readonly dangling: Set<string>;

  constructor(
    private readonly notes: NoteTable,
    private readonly paths_: readonly string[],
    private readonly links: SavedLinks,
  ) {
    this.dangling = new Set(links.dangling);
  }

  /** Whether the whole graph was made (after a change). */
  get materialized(): boolean {
    return this.graph !== undefined;
  }

  /** The saved arrays, while nothing changed: a save copies them as they are. */
  get saved(): SavedLinks | undefined {
    return this.graph || this.written.size > 0 ? undefined : this.links;
  }

  /** Folded names unresolved links name, for a save (see SavedLinks.dangling). */
  danglingNames(): string[] {
    if (this.graph) return [...new Set(this.graph.unresolved().map((edge) => nameOf(edge.link.target)))];
    return [...this.dangling];
  }

  upsert(note: Note, previous?: Note): void {
    if (this.graph) {
      this.graph.upsert(note, previous);
      return;
    }
    const { path } = note;
    // An append (a chat turn's entry): the note's links so far point where they did, as written
    // since or as saved, and only the appended ones are resolved (see LinkGraph.upsert). The
    // first add to a saved day so made no index of every path when it adds no link (58 ms at
    // 100,000 notes).
    const held = this.written.get(path) ?? (previous ? this.savedRow(path, previous) : undefined);
    if (previous && held?.length === previous.links.length && appendedLinks(previous, note)) {
      if (this.written.get(path) !== held) this.hold(path, held);
      if (note.links.length === held.length) return;
      const paths = this.pathIndexNow();
      for (const link of note.links.slice(held.length)) {
        const to = resolveLink(link.target, path, paths);
        held.push(to);
        if (to === undefined) this.dangling.add(nameOf(link.target));
        else {
          const from = this.writtenIn.get(to) ?? new Set<string>();
          from.add(path);
          this.writtenIn.set(to, from);
        }
      }
      return;
    }
    // The table holds the note already (VaultIndex sets it first), and so may the path index if
    // made just now: a path is new to the graph when it was neither saved nor written since.
    const paths = this.pathIndexNow();
    if (this.notes.slotOf(path) === undefined && !this.written.has(path)) {
      const name = foldPath(basenameOf(path));
      // Another file of its name: links that resolved to it may now resolve to this one.
      if (paths.candidates(name).some((other) => other !== path)) {
        this.whole().upsert(note);
        return;
      }
      paths.add(path);
      const named = this.dangling.has(name) || (name.endsWith('.md') && this.dangling.has(name.slice(0, -3)));
      if (named && !this.takeOver(paths)) {
        this.whole().upsert(note);
        return;
      }
    }
    const targets = note.links.map((link) => resolveLink(link.target, path, paths));
    note.links.forEach((link, i) => {
      if (targets[i] === undefined) this.dangling.add(nameOf(link.target));
    });
    this.hold(path, targets);
  }

  /** Where the links of a note not written since point, from its saved row; undefined when the row is not `previous`'s. */
  private savedRow(path: string, previous: Note): Array<string | undefined> | undefined {
    const slot = this.notes.slotOf(path);
    if (slot === undefined) return undefined;
    const { outStart } = this.links;
    const saved = (outStart[slot + 1] as number) - (outStart[slot] as number);
    return saved === previous.links.length ? this.outTargets(path) : undefined;
  }

  /** Holds `targets` as where the links of the note at `from` point now, in place of what was held or saved. */
  private hold(from: string, targets: Array<string | undefined>): void {
    this.forget(from);
    this.written.set(from, targets);
    for (const to of targets)
      if (to !== undefined) this.writtenIn.set(to, (this.writtenIn.get(to) ?? new Set()).add(from));
  }

  /**
   * A new note whose name unresolved links name: the notes holding an unresolved link (found in the
   * saved rows, then decoded) are held as written, those links resolved again, so the new note
   * takes them over. Nothing else can move (no other file has its name). Making the whole graph
   * instead decoded every note: the first entry of a day that insights already linked to cost
   * 3.3 s and about 600 MiB at 100,000 notes. False when a note no longer fits its saved row.
   */
  private takeOver(paths: PathIndex): boolean {
    const { outStart, outTarget } = this.links;
    const holders: string[] = [];
    for (let slot = 0; slot < this.paths_.length; slot++) {
      const from = this.paths_[slot] as string;
      if (this.written.has(from)) continue;
      for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
        if (outTarget[i] !== -1) continue;
        if (this.notes.has(from)) holders.push(from);
        break;
      }
    }
    for (const [from, targets] of this.written) if (targets.includes(undefined)) holders.push(from);
    for (const from of holders) {
      const note = this.notes.get(from);
      const targets = this.outTargets(from);
      if (!note || note.links.length !== targets.length) return false;
      const next = note.links.map((link, i) => targets[i] ?? resolveLink(link.target, from, paths));
      if (next.some((to, i) => to !== targets[i])) this.hold(from, next);
    }
    return true;
  }

  /** Drops what `written` holds of a note's links. */
  private forget(path: string): void {
    for (const to of this.written.get(path) ?? []) if (to !== undefined) this.writtenIn.get(to)?.delete(path);
    this.written.delete(path);
  }

  addFile(path: string): void {
    this.whole().addFile(path);
  }

  remove(path: string): void {
    this.whole().remove(path);
  }

  rename(from: string, to: string, note: Note): void {
    this.whole().rename(from, to, note);
  }

  unresolved(): Edge[] {
    if (this.graph) return this.graph.unresolved();
    const found: Edge[] = [];
    const { outStart, outTarget } = this.links;
    for (let slot = 0; slot < this.paths_.length; slot++) {
      const path = this.paths_[slot] as string;
      if (this.written.has(path) || !this.notes.has(path)) continue;
      let dangles = false;
      for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number) && !dangles; i++) {
        dangles = outTarget[i] === -1;
      }
      if (!dangles) continue;
      const edges = this.edgesOf(path);
      if (!edges) return this.whole().unresolved();
      for (const edge of edges) if (edge.to === undefined) found.push(edge);
    }
    for (const path of this.written.keys()) {
      for (const edge of this.edgesOf(path) ?? []) if (edge.to === undefined) found.push(edge);
    }
    return found.sort(bySource);
  }

  mayBeNamedUnresolved(folded: string): boolean {
    return this.graph ? this.graph.mayBeNamedUnresolved(folded) : this.dangling.has(folded);
  }

  outEdges(path: string): Edge[] {
    if (this.graph) return this.graph.outEdges(path);
    if (!this.notes.has(path)) return [];
    return this.edgesOf(path) ?? this.whole().outEdges(path);
  }

  backlinks(path: string): Edge[] {
    if (this.graph) return this.graph.backlinks(path);
    const found: Edge[] = [];
    for (const from of this.linkingTo(path)) {
      const edges = this.edgesOf(from);
      if (!edges) return this.whole().backlinks(path);
      for (const edge of edges) if (edge.to === path) found.push(edge);
    }
    return found.sort(bySource);
  }

  /**
   * Where each link to `path` is written, by linking note (then in its order): from the saved
   * rows, without decoding the linking notes; a note written since is decoded.
   */
  linksTo(path: string): LinkingPlace[] {
    if (this.graph) return this.graph.linksTo(path);
    const found: LinkingPlace[] = [];
    for (const from of [...this.linkingTo(path)].sort(compareStrings)) {
      const places = this.outPlaces(from);
      const targets = this.outTargets(from);
      if (places.length !== targets.length) return this.whole().linksTo(path);
      targets.forEach((to, i) => {
        if (to === path) found.push({ from, place: places[i] as LinkPlace });
      });
    }
    return found;
  }

  outPlaces(path: string): LinkPlace[] {
    if (this.graph) return this.graph.outPlaces(path);
    if (!this.notes.has(path)) return [];
    const slot = this.notes.slotOf(path);
    if (!this.written.has(path) && slot !== undefined) {
      const { outStart, outPlace, subpaths } = this.links;
      const places: LinkPlace[] = [];
      for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
        const place = unpackPlace(outPlace[i] as number, subpaths);
        if (!place) break;
        places.push(place);
      }
      if (places.length === (outStart[slot + 1] as number) - (outStart[slot] as number)) return places;
    }
    // Written since, or saved without a place that fits: the note says.
    const note = this.notes.get(path);
    return note ? linkPlaces(note) : [];
  }

  neighbours(path: string): string[] {
    if (this.graph) return this.graph.neighbours(path);
    const found = new Set<string>(this.linkingTo(path));
    for (const to of this.outTargets(path)) if (to !== undefined) found.add(to);
    found.delete(path);
    return [...found].sort(compareStrings);
  }

  has(path: string): boolean {
    return this.graph ? this.graph.has(path) : this.notes.has(path);
  }

  paths(): string[] {
    return this.graph ? this.graph.paths() : [...this.notes.keys()].sort(compareStrings);
  }

  resolve(target: string, fromPath: string): string | undefined {
    if (this.graph) return this.graph.resolve(target, fromPath);
    return resolveLink(target, fromPath, this.pathIndexNow());
  }

  outTargets(path: string): Array<string | undefined> {
    if (this.graph) return this.graph.outTargets(path);
    const written = this.written.get(path);
    if (written) return [...written];
    const slot = this.notes.slotOf(path);
    if (slot === undefined || !this.notes.has(path)) return [];
    const { outStart, outTarget } = this.links;
    const out: Array<string | undefined> = [];
    for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
      const to = outTarget[i] as number;
      out.push(to < 0 ? undefined : this.paths_[to]);
    }
    return out;
  }

  /** Every path of the vault, for resolving links (made at the first need, then kept). */
  private pathIndexNow(): PathIndex {
    if (!this.pathIndex) {
      this.pathIndex = new PathIndex();
      for (const path of this.notes.keys()) this.pathIndex.add(path);
    }
    return this.pathIndex;
  }

  /** The notes with a link resolved to `path`: saved rows (of notes not written since) and written notes. */
  private linkingTo(path: string): Set<string> {
    const found = new Set<string>();
    const slot = this.notes.slotOf(path);
    if (slot !== undefined) {
      for (const linking of this.linkingSlots(slot)) {
        const from = this.paths_[linking] as string;
        if (!this.written.has(from) && this.notes.has(from)) found.add(from);
      }
    }
    for (const from of this.writtenIn.get(path) ?? []) found.add(from);
    return found;
  }

  /**
   * The distinct saved slots with a link resolved to `slot`, in slot order. The first lookups of a
   * process scan the saved targets (a native search of one array, 0.2 ms at 700,000 links); after
   * SCANS_BEFORE_TRANSPOSE of them the rows are transposed once (20 ms at 100,000 notes), which a
   * fresh recall's 20 seeds never reach.
   */
  private linkingSlots(slot: number): Int32Array {
    if (!this.back && this.scans < SCANS_BEFORE_TRANSPOSE) {
      this.scans++;
      return scanLinking(this.links, slot);
    }
    this.back ??= transpose(this.links, this.paths_.length);
    const { inStart, inFrom } = this.back;
    return inFrom.subarray(inStart[slot] as number, inStart[slot + 1] as number);
  }

  /** A note's links as edges: resolved as written, or as saved; undefined when the saved rows do not fit the note. */
  private edgesOf(path: string): Edge[] | undefined {
    const note = this.notes.get(path);
    if (!note) return [];
    let targets = this.written.get(path);
    if (!targets) {
      const slot = this.notes.slotOf(path);
      const { outStart } = this.links;
      // The note read is not the one whose links were saved (a damaged note read again from a file
      // that changed since): the saved rows no longer describe the vault.
      const saved = slot === undefined ? -1 : (outStart[slot + 1] as number) - (outStart[slot] as number);
      if (note.links.length !== saved) return undefined;
      targets = this.outTargets(path);
    }
    const resolved = targets;
    const sections = linkSections(note);
    return note.links.map((link, i) => {
      const edge: Edge = { from: path, link, section: sections[i] as string };
      const to = resolved[i];
      if (to !== undefined) edge.to = to;
      return edge;
    });
  }

  /** The whole LinkGraph, made once from every note (each decoded in turn). */
  private whole(): LinkGraph {
    if (!this.graph) {
      this.graph = LinkGraph.fromNotes([...this.notes.values()]);
      this.pathIndex = undefined;
      this.written.clear();
      this.writtenIn.clear();
    }
    return this.graph;
  }
}

/** Lookups of linking notes a graph answers by scanning before it transposes the saved rows */
export const SCANS_BEFORE_TRANSPOSE = 64;

/** The distinct slots whose saved links resolve to `slot`, in slot order, by a scan of `outTarget`. */
export function scanLinking({ outStart, outTarget }: SavedLinks, slot: number): Int32Array {
  const found: number[] = [];
  let row = 0;
  for (let i = outTarget.indexOf(slot); i !== -1; i = outTarget.indexOf(slot, i + 1)) {
    // The row holding link `i`: the last whose start is at or before it (rows may be empty).
    let low = row;
    let high = outStart.length - 2;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((outStart[mid] as number) <= i) low = mid;
      else high = mid - 1;
    }
    row = low;
    if (found[found.length - 1] !== row) found.push(row);
  }
  return Int32Array.from(found);
}

/** Backlinks of every slot: the distinct linking slots of each target, in slot order (a transpose of the rows). */
export function transpose(
  { outStart, outTarget }: SavedLinks,
  n: number,
): { inStart: Int32Array; inFrom: Int32Array } {
  const counts = new Int32Array(n + 1);
  const seen = new Int32Array(n).fill(-1);
  for (let from = 0; from < n; from++) {
    for (let i = outStart[from] as number; i < (outStart[from + 1] as number); i++) {
      const to = outTarget[i] as number;
      if (to < 0 || seen[to] === from) continue;
      seen[to] = from;
      counts[to + 1] = (counts[to + 1] as number) + 1;
    }
  }
  for (let i = 0; i < n; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number);
  const inStart = counts.slice();
  const fill = counts;
  const inFrom = new Int32Array(counts[n] as number);
  seen.fill(-1);
  for (let from = 0; from < n; from++) {
    for (let i = outStart[from] as number; i < (outStart[from + 1] as number); i++) {
      const to = outTarget[i] as number;
      if (to < 0 || seen[to] === from) continue;
      seen[to] = from;
      inFrom[(fill[to] as number)++] = from;
    }
  }
  return { inStart, inFrom };
}

/** The anchor of the section holding each of a note's links, found once per note object. */
const sectionsByNote = new WeakMap<Note, string[]>();

function linkSections(note: Note): string[] {
  let sections = sectionsByNote.get(note);
  if (!sections) {
    // A note from the cache finds them from its sections' spans, decoding none of them.
    const spans = sectionSpans(note);
    sections = note.links.map((link) => sectionOf(spans, link));
    sectionsByNote.set(note, sections);
  }
  return sections;
}

function nameOf(target: string): string {
  return target === '' ? '' : foldPath(basenameOf(target));
}

function bySource(a: Edge, b: Edge): number {
  return compareStrings(a.from, b.from) || a.link.start - b.link.start;
}
