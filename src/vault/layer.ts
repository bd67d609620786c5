import type { Layer } from '../core/types.js';

const KNOWN = new Set<string>(['persona', 'profile', 'episodes', 'insights', 'archive']);

/** The layer of a note: the first folder of its vault-relative POSIX path, else `other`. */
export function layerOf(path: string): Layer {
  const slash = path.indexOf('/');
  // A file at the vault root has no folder, so it is `other` even when named `persona.md`.
  if (slash <= 0) return 'other';
  const first = path.slice(0, slash);
  return KNOWN.has(first) ? (first as Layer) : 'other';
}
