import { TextIndex } from '../../src/indexing/text/text-index.js';

/**
 * An index restored from its saved segments, as the `.mem/` cache reads it back (its postings still
 * the saved bytes). A segment is its pieces up to the one marked `end`, as the cache writes it to a
 * file.
 */
export function reloaded(built: TextIndex): TextIndex {
  const loader = TextIndex.loader(built.storeHeader());
  let pieces: Uint8Array[] = [];
  for (const piece of built.storeSegments()) {
    pieces.push(piece.data);
    if (!piece.end) continue;
    if (piece.part === 'docs') loader.docs(Buffer.concat(pieces));
    else loader.terms(Buffer.concat(pieces));
    pieces = [];
  }
  return loader.finish();
}
