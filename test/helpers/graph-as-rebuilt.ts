import { expect } from 'vitest';
import type { Vault } from '../../src/api/open-vault.js';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';
import type { SavedLinkGraph } from '../../src/indexing/links/saved-links.js';

/** The link graph a vault's index holds (the saved one while nothing made it whole). */
export function graphOf(vault: Vault): LinkGraph | SavedLinkGraph {
  return (vault as unknown as { live: { index: { graph: LinkGraph | SavedLinkGraph } } }).live.index.graph;
}

/** What the graph answers about every note, as a graph made from the vault's notes now answers it. */
export function expectSameAsRebuilt(vault: Vault, where: string): void {
  const graph = graphOf(vault);
  const reference = LinkGraph.fromNotes(vault.paths().map((path) => vault.note(path)));
  for (const path of vault.paths()) {
    expect(graph.outEdges(path), `${where}: out of ${path}`).toEqual(reference.outEdges(path));
    expect(graph.backlinks(path), `${where}: backlinks of ${path}`).toEqual(reference.backlinks(path));
    expect(graph.neighbours(path), `${where}: neighbours of ${path}`).toEqual(reference.neighbours(path));
    expect(graph.outTargets(path), `${where}: targets of ${path}`).toEqual(reference.outTargets(path));
    expect(graph.outPlaces(path), `${where}: places of ${path}`).toEqual(reference.outPlaces(path));
    expect(graph.linksTo(path), `${where}: links to ${path}`).toEqual(reference.linksTo(path));
  }
  expect(graph.unresolved(), where).toEqual(reference.unresolved());
}
