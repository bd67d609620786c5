import { basenameOf, foldPath } from '../../vault/links/resolve-link.js';
import { PlacePacker } from './link-places.js';
import { type Graph, SavedLinkGraph, type SavedLinks } from './saved-links.js';

/**
 * The link graph's rows over the slots of a save (slots are the notes' order, `notes.keys()`): where
 * each link points and where it is written. A graph still as the cache saved it is copied as it
 * is: no note changed, so no slot moved.
 */
export function linkRows(graph: Graph, notes: { size: number; keys(): Iterable<string> }): SavedLinks {
  if (graph instanceof SavedLinkGraph && graph.saved) return graph.saved;
  const slots = new Map<string, number>();
  for (const path of notes.keys()) slots.set(path, slots.size);
  const outStart = new Int32Array(notes.size + 1);
  const targets: number[] = [];
  const places: number[] = [];
  const packer = new PlacePacker();
  let slot = 0;
  for (const path of notes.keys()) {
    // A link to a file that is not a note (LinkGraph.addFile) is saved as unresolved; nothing adds such files yet.
    for (const to of graph.outTargets(path)) targets.push(to === undefined ? -1 : (slots.get(to) ?? -1));
    const placed = graph.outPlaces(path);
    const count = targets.length - places.length;
    for (let i = 0; i < count; i++) places.push(packer.pack(placed[i]));
    outStart[++slot] = targets.length;
  }
  const dangling =
    graph instanceof SavedLinkGraph
      ? graph.danglingNames()
      : [...new Set(graph.unresolved().map((edge) => foldPath(basenameOf(edge.link.target))))];
  return {
    outStart,
    outTarget: Int32Array.from(targets),
    outPlace: Int32Array.from(places),
    subpaths: packer.subpaths,
    dangling,
  };
}
