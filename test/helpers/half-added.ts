import type { TextIndex } from '../../src/indexing/text/text-index.js';

/**
 * The state a half-finished add leaves in `index` (and a save of it): MiniSearch holds the note's
 * sections, the map from paths to section ids does not. Reaches into the private map: no public
 * call leaves the index this way, which is why the state needs a test.
 */
export function forgetPath(index: TextIndex, path: string): TextIndex {
  (index as unknown as { pathIds: Map<string, string[] | null> }).pathIds.delete(path);
  return index;
}
