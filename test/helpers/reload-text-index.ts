import { TextIndex } from '../../src/indexing/text/text-index.js';
import type { TextStoreLimits } from '../../src/indexing/text/text-index-store.js';

/**
 * An index restored from its saved segments, as the `.mem/` cache reads it back (its postings still
 * the saved bytes), its segments cut at `limits` when given. A segment is its pieces up to the one
 * marked `end`, as the cache writes it to a file.
 */
export function reloaded(built: TextIndex, limits?: TextStoreLimits): TextIndex {
  const loader = TextIndex.loader(built.storeHeader());
  let pieces: Uint8Array[] = [];
  for (const piece of built.storeSegments(limits)) {
    pieces.push(piece.data);
    if (!piece.end) continue;
    if (piece.part === 'docs') loader.docs(Buffer.concat(pieces));
    else loader.terms(Buffer.concat(pieces));
    pieces = [];
  }
  return loader.finish();
}
