import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { LinkGraph } from '../../src/indexing/links/link-graph.js';
import {
  SavedLinkGraph,
  type SavedLinks,
  SCANS_BEFORE_TRANSPOSE,
  scanLinking,
  transpose,
} from '../../src/indexing/links/saved-links.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

/** A deterministic sequence of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Rows of `n` slots: empty ones, unresolved links (-1), links to self and the same target twice. */
function randomLinks(n: number, seed: number): SavedLinks {
  const next = random(seed);
  const outStart = new Int32Array(n + 1);
  const targets: number[] = [];
  for (let from = 0; from < n; from++) {
    const count = next() < 0.3 ? 0 : Math.floor(next() * 6);
    for (let k = 0; k < count; k++) {
      const roll = next();
      targets.push(roll < 0.1 ? -1 : roll < 0.15 ? from : Math.floor(next() * Math.min(n, 8 + from)));
    }
    outStart[from + 1] = targets.length;
  }
  const outPlace = new Int32Array(targets.length).fill(-1);
  return { outStart, outTarget: Int32Array.from(targets), outPlace, subpaths: [], dangling: [] };
}

describe('the linking slots of a saved graph', () => {
  it('found by a scan of the rows are those of the transpose, for every slot', () => {
    for (const [n, seed] of [
      [1, 1],
      [2, 2],
      [17, 3],
      [300, 4],
    ] as const) {
      const links = randomLinks(n, seed);
      const { inStart, inFrom } = transpose(links, n);
      for (let slot = 0; slot < n; slot++) {
        expect([...scanLinking(links, slot)], `slot ${slot} of ${n}`).toEqual([
          ...inFrom.subarray(inStart[slot] as number, inStart[slot + 1] as number),
        ]);
      }
    }
  });

  it('answer as the graph made from every note, before and after the rows are transposed', async () => {
    const files: Record<string, string> = {};
    const count = 40;
    const next = random(11);
    for (let k = 0; k < count; k++) {
      const links = Array.from(
        { length: Math.floor(next() * 4) },
        () => `[[n${Math.floor(next() * count)}]]`,
      );
      files[`insights/n${k}.md`] = `# N${k}\n\n${links.join(' ')} [[#N${k}]] [[missing${k % 3}]]\n`;
    }
    const root = await makeVault(files);
    await (await openVault({ path: root })).close();
    const vault = await openVault({ path: root });
    const graph = (vault as unknown as { live: { index: { graph: SavedLinkGraph } } }).live.index.graph;
    expect(graph).toBeInstanceOf(SavedLinkGraph);
    const reference = LinkGraph.fromNotes(vault.paths().map((path) => vault.note(path)));
    // Each round asks two lookups per note: the first rounds scan, the later ones read the transpose.
    const rounds = Math.ceil(SCANS_BEFORE_TRANSPOSE / (2 * count)) + 1;
    for (let round = 0; round < rounds; round++) {
      for (const path of vault.paths()) {
        expect(graph.backlinks(path), `backlinks of ${path}`).toEqual(reference.backlinks(path));
        expect(graph.neighbours(path), `neighbours of ${path}`).toEqual(reference.neighbours(path));
      }
    }
    expect(graph.materialized).toBe(false);
    await vault.close();
  });
});
