// A cold index (every note read into an empty index, to be saved) that holds no parsed note past
// its own indexing: each is written to the notes segments of the generation the save will write
// (note-spill.ts) and held as its slot; the link graph keeps, per link, only where it points from
// and to what name, and is resolved once every path is known. At 40,000 notes the parsed notes and
// the LinkGraph over them were 220 MiB of a 400 MiB live peak.
import type { Edge, Note } from '../core/types.js';
import {
  basenameOf,
  compareStrings,
  dirnameOf,
  foldPath,
  PathIndex,
  resolveLink,
} from '../vault/links/resolve-link.js';
import { LinkGraph } from './links/link-graph.js';
import { type LinkingPlace, type LinkPlace, linkPlaces, PlacePacker } from './links/link-places.js';
import { type Graph, SavedLinkGraph, type SavedLinks } from './links/saved-links.js';
import { NoteSpill } from './note-spill.js';
import type { NoteTable } from './note-table.js';
import { ColdTextIndex } from './text/cold/cold-text-index.js';
import { TypedList } from './typed-list.js';
import type { VaultIndex } from './vault-index.js';

/** A cold index of fewer notes than this keeps them in the heap: its peak is small either way */
export const COLD_SPILL_MIN = 2000;

/** A string of its own: a link's target may be a slice of its note's text, which it would keep alive. */
function ownString(text: string): string {
  return ` ${text}`.slice(1);
}

/**
 * The link graph of a cold build: per note (in the order added, which is the table's) the target
 * of each link, as an id into the distinct targets, and its offset. Anything but adding a new
 * note makes the whole LinkGraph from every note (decoded from the spill) and hands over to it.
 */
export class ColdLinks implements Graph {
  private graph: LinkGraph | undefined;
  private readonly order = new Map<string, number>();
  private readonly slotPaths: string[] = [];
  private readonly targetIds = new Map<string, number>();
  private readonly targets: string[] = [];
  private readonly outStart = new TypedList(Int32Array);
  private readonly outTarget = new TypedList(Int32Array);
  private readonly outOffset = new TypedList(Int32Array);
  private readonly outPlace = new TypedList(Int32Array);
  private readonly places = new PlacePacker();

  constructor(private readonly notes: NoteTable) {
    this.outStart.push(0);
  }

  upsert(note: Note): void {
    if (this.graph || this.order.has(note.path)) {
      this.whole().upsert(note);
      return;
    }
    this.order.set(note.path, this.slotPaths.length);
    this.slotPaths.push(note.path);
    for (const place of linkPlaces(note)) this.outPlace.push(this.places.pack(place));
    for (const link of note.links) {
      let id = this.targetIds.get(link.target);
      if (id === undefined) {
        id = this.targets.length;
        const target = ownString(link.target);
        this.targets.push(target);
        this.targetIds.set(target, id);
      }
      this.outTarget.push(id);
      this.outOffset.push(link.start);
    }
    this.outStart.push(this.outTarget.length);
  }

  /** The whole LinkGraph of the notes the table holds, made once. */
  private whole(): LinkGraph {
    this.graph ??= LinkGraph.fromNotes([...this.notes.values()]);
    return this.graph;
  }

  /**
   * The graph the index keeps once every note is in: the saved rows over the table's slots (the
   * order the notes were added, every one of them a slot), or the whole LinkGraph when another
   * change came in meanwhile.
   */
  finish(): Graph {
    if (this.graph || this.slotPaths.length !== this.notes.size) return this.whole();
    for (let slot = 0; slot < this.slotPaths.length; slot++) {
      if (this.notes.entry(this.slotPaths[slot] as string) !== slot) return this.whole();
    }
    return new SavedLinkGraph(this.notes, this.slotPaths, this.links());
  }

  /**
   * Every link resolved against every path, as LinkGraph.fromNotes resolves them (each target
   * from each folder once), and the names of the unresolved ones in LinkGraph.unresolved()'s order.
   */
  private links(): SavedLinks {
    const index = new PathIndex();
    for (const path of this.slotPaths) index.add(path);
    const resolved = new Map<string, number>();
    const n = this.slotPaths.length;
    const outStart = this.outStart.done();
    const outTarget = new Int32Array(this.outTarget.length);
    const unresolved: number[] = [];
    for (let slot = 0; slot < n; slot++) {
      const from = this.slotPaths[slot] as string;
      const dir = dirnameOf(from);
      for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
        const target = this.targets[this.outTarget.array[i] as number] as string;
        const key = target === '' ? undefined : `${dir}\u0000${target}`;
        let to = key === undefined ? undefined : resolved.get(key);
        if (to === undefined) {
          const path = resolveLink(target, from, index);
          to = path === undefined ? -1 : (this.order.get(path) ?? -1);
          if (key !== undefined) resolved.set(key, to);
        }
        outTarget[i] = to;
        if (to === -1) unresolved.push(i);
      }
    }
    return {
      outStart,
      outTarget,
      outPlace: this.outPlace.done(),
      subpaths: this.places.subpaths,
      dangling: this.danglingNames(unresolved, outStart),
    };
  }

  /** The distinct folded names of the unresolved links `edges`, by linking note then offset. */
  private danglingNames(edges: number[], outStart: Int32Array): string[] {
    const fromOf = new Int32Array(this.outTarget.length);
    for (let slot = 0; slot < this.slotPaths.length; slot++)
      fromOf.fill(slot, outStart[slot] as number, outStart[slot + 1] as number);
    const sorted = edges
      .map((i, k) => ({ i, k, from: this.slotPaths[fromOf[i] as number] as string }))
      .sort(
        (a, b) =>
          compareStrings(a.from, b.from) ||
          (this.outOffset.array[a.i] as number) - (this.outOffset.array[b.i] as number) ||
          a.k - b.k,
      );
    const names = new Set<string>();
    for (const { i } of sorted) {
      const target = this.targets[this.outTarget.array[i] as number] as string;
      names.add(target === '' ? '' : foldPath(basenameOf(target)));
    }
    return [...names];
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

  outEdges(path: string): Edge[] {
    return this.whole().outEdges(path);
  }

  backlinks(path: string): Edge[] {
    return this.whole().backlinks(path);
  }

  unresolved(): Edge[] {
    return this.whole().unresolved();
  }

  mayBeNamedUnresolved(folded: string): boolean {
    return this.whole().mayBeNamedUnresolved(folded);
  }

  linksTo(path: string): LinkingPlace[] {
    return this.whole().linksTo(path);
  }

  outPlaces(path: string): LinkPlace[] {
    return this.whole().outPlaces(path);
  }

  neighbours(path: string): string[] {
    return this.whole().neighbours(path);
  }

  has(path: string): boolean {
    return this.whole().has(path);
  }

  paths(): string[] {
    return this.whole().paths();
  }

  resolve(target: string, fromPath: string): string | undefined {
    return this.whole().resolve(target, fromPath);
  }

  outTargets(path: string): Array<string | undefined> {
    return this.whole().outTargets(path);
  }
}

/**
 * One cold build: started when an empty index that will be saved is to read many notes. add()
 * indexes a note and spills it; finish() puts the graph in place and leaves the spill for the save.
 */
export class ColdBuild {
  private readonly links: ColdLinks;

  private constructor(
    private readonly index: VaultIndex,
    private readonly spill: NoteSpill,
  ) {
    this.links = new ColdLinks(index.notes);
    index.graph = this.links;
    // The text index too is held as the save will write it (cold-text-index.ts), when it is empty.
    const held = index.text;
    // Asked of a ColdTextIndex only while it holds its segments: `size` would read saved ones.
    if (held instanceof ColdTextIndex ? held.holdsSegments && held.size === 0 : held.size === 0) {
      const text = new ColdTextIndex();
      text.rebuildFrom = index.text.rebuildFrom;
      text.onRebuilt = index.text.onRebuilt;
      index.text = text;
    }
    index.notes.spillInto(spill.saved);
    // Every declared tracker is told of each note as it comes: the save would otherwise decode
    // every spilled note again to make them.
    index.trackDeclared();
  }

  /** Whether reading `count` notes into `index` is a cold build that spills (see start). */
  static wanted(index: VaultIndex, count: number): boolean {
    const from = index.spillFrom;
    return from !== undefined && count >= from && index.notes.size === 0 && !index.notes.hasSaved;
  }

  /**
   * A cold build of `count` notes into `index`, or undefined when the index should hold them as
   * before. The caller made `.mem/` with its `.gitignore` first (ensureCacheDir).
   */
  static start(root: string, index: VaultIndex, count: number): ColdBuild | undefined {
    if (!ColdBuild.wanted(index, count)) return undefined;
    const spill = NoteSpill.start(root);
    return spill ? new ColdBuild(index, spill) : undefined;
  }

  add(note: Note): void {
    // A path read twice (an NFD and an NFC name) would take two slots: the spill stops there.
    if (this.index.notes.has(note.path)) this.spill.healthy = false;
    this.index.upsert(note);
    const slot = this.spill.write(note);
    if (slot !== undefined) this.index.notes.spilled(note.path, slot);
  }

  /** The build failed: its spill is saved by no one (a later save removes its folder). */
  abandon(): void {
    this.spill.abandon();
  }

  /**
   * Ends the build. When every note is its slot in the spill, in order, the save writes the rest
   * of the generation beside the spilled notes; else it writes a generation of its own, copying
   * the spilled notes' bytes (the spill's folder is removed by that save, as an older generation).
   */
  finish(): void {
    this.spill.finish();
    if (this.index.text instanceof ColdTextIndex) this.index.text.endCold();
    const graph = this.links.finish();
    this.index.graph = graph;
    if (graph instanceof SavedLinkGraph && this.spill.healthy && this.spill.count === this.index.notes.size)
      this.index.pending = { spill: this.spill, version: this.index.changes };
  }
}
