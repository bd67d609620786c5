import type { Edge, Note } from '../core/types.js';
import { compareStrings, PathIndex, resolveLink } from '../vault/resolve-link.js';
import { LinkGraph, sectionOf } from './link-graph.js';
import type { NoteTable } from './note-table.js';

/**
 * The link graph as the cache saved it, in compressed-row form over the saved notes' slots:
 * `outStart[slot]…outStart[slot + 1]` are the slot's links in source order (`note.links`), each
 * `outTarget` the slot it resolved to, or -1 when unresolved. No object per note or per link.
 */
export interface SavedLinks {
  outStart: Int32Array;
  outTarget: Int32Array;
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
  | 'neighbours'
  | 'has'
  | 'paths'
  | 'resolve'
  | 'outTargets'
>;

/**
 * The link graph of a vault opened from the cache: one hop of links is answered from the saved
 * arrays, decoding only the notes on that hop, until the first change to the vault's notes makes
 * the whole LinkGraph from every note (a change can re-resolve links anywhere).
 */
export class SavedLinkGraph implements Graph {
  private graph: LinkGraph | undefined;
  private readonly inStart: Int32Array;
  private readonly inFrom: Int32Array;
  private pathIndex: PathIndex | undefined;

  constructor(
    private readonly notes: NoteTable,
    private readonly paths_: readonly string[],
    private readonly links: SavedLinks,
  ) {
    // Backlinks: the distinct linking slots of each target, in slot order (a transpose of the rows).
    const n = paths_.length;
    const { outStart, outTarget } = links;
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
    this.inStart = counts.slice();
    const fill = counts;
    this.inFrom = new Int32Array(counts[n] as number);
    seen.fill(-1);
    for (let from = 0; from < n; from++) {
      for (let i = outStart[from] as number; i < (outStart[from + 1] as number); i++) {
        const to = outTarget[i] as number;
        if (to < 0 || seen[to] === from) continue;
        seen[to] = from;
        this.inFrom[(fill[to] as number)++] = from;
      }
    }
  }

  /** Whether the whole graph was made (after a change). */
  get materialized(): boolean {
    return this.graph !== undefined;
  }

  /** The saved arrays, while no change made the whole graph: a save copies them as they are. */
  get saved(): SavedLinks | undefined {
    return this.graph ? undefined : this.links;
  }

  upsert(note: Note): void {
    this.whole().upsert(note);
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
    return this.whole().unresolved();
  }

  outEdges(path: string): Edge[] {
    if (this.graph) return this.graph.outEdges(path);
    const slot = this.slotOf(path);
    if (slot === undefined) return [];
    const edges = this.edgesFrom(slot);
    return edges ? edges.map(({ edge }) => edge) : this.whole().outEdges(path);
  }

  backlinks(path: string): Edge[] {
    if (this.graph) return this.graph.backlinks(path);
    const slot = this.slotOf(path);
    if (slot === undefined) return [];
    const found: Edge[] = [];
    for (let i = this.inStart[slot] as number; i < (this.inStart[slot + 1] as number); i++) {
      const edges = this.edgesFrom(this.inFrom[i] as number);
      if (!edges) return this.whole().backlinks(path);
      for (const { edge, to } of edges) if (to === slot) found.push(edge);
    }
    return found.sort((a, b) => compareStrings(a.from, b.from) || a.link.start - b.link.start);
  }

  neighbours(path: string): string[] {
    if (this.graph) return this.graph.neighbours(path);
    const slot = this.slotOf(path);
    if (slot === undefined) return [];
    const found = new Set<string>();
    const { outStart, outTarget } = this.links;
    for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
      const to = outTarget[i] as number;
      if (to >= 0) found.add(this.paths_[to] as string);
    }
    for (let i = this.inStart[slot] as number; i < (this.inStart[slot + 1] as number); i++) {
      found.add(this.paths_[this.inFrom[i] as number] as string);
    }
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
    if (!this.pathIndex) {
      this.pathIndex = new PathIndex();
      for (const path of this.notes.keys()) this.pathIndex.add(path);
    }
    return resolveLink(target, fromPath, this.pathIndex);
  }

  outTargets(path: string): Array<string | undefined> {
    if (this.graph) return this.graph.outTargets(path);
    const slot = this.slotOf(path);
    if (slot === undefined) return [];
    const { outStart, outTarget } = this.links;
    const out: Array<string | undefined> = [];
    for (let i = outStart[slot] as number; i < (outStart[slot + 1] as number); i++) {
      const to = outTarget[i] as number;
      out.push(to < 0 ? undefined : this.paths_[to]);
    }
    return out;
  }

  private slotOf(path: string): number | undefined {
    const entry = this.notes.entry(path);
    return typeof entry === 'number' ? entry : undefined;
  }

  /** A saved slot's links as edges, with the slot each resolved to; undefined when they no longer match. */
  private edgesFrom(slot: number): Array<{ edge: Edge; to: number }> | undefined {
    const path = this.paths_[slot] as string;
    const note = this.notes.get(path);
    const { outStart, outTarget } = this.links;
    const start = outStart[slot] as number;
    if (!note || note.links.length !== (outStart[slot + 1] as number) - start) {
      // The note read is not the one whose links were saved (a damaged note read again from a file
      // that changed since): the saved rows no longer describe the vault.
      this.whole();
      return [];
    }
    return note.links.map((link, i) => {
      const to = outTarget[start + i] as number;
      const edge: Edge = { from: path, link, section: sectionOf(note, link) };
      if (to >= 0) edge.to = this.paths_[to] as string;
      return { edge, to };
    });
  }

  /** The whole LinkGraph, made once from every note (each decoded in turn). */
  private whole(): LinkGraph {
    if (!this.graph) {
      this.graph = LinkGraph.fromNotes([...this.notes.values()]);
      this.pathIndex = undefined;
    }
    return this.graph;
  }
}
