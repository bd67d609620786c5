// Which sections hold a text, by the text's sha256 (the vector cache's key): how a vector the
// cache's top-k (exact, or the ANN index past ~16k vectors) finds becomes the sections recall
// ranks, without scoring every section of the vault on each turn. Built on the first read that
// needs it, then kept by the notes each index change names, so a turn after a write costs only
// the written note's sections.
import { createHash } from 'node:crypto';
import type { VaultIndex } from '../indexing/vault-index.js';

const keyOf = (text: string) => createHash('sha256').update(text).digest('hex');

export class SectionsByText {
  private readonly index: VaultIndex;
  /** Per note: the keys of its sections and their ids, as last read */
  private byPath: Map<string, Array<[key: string, id: string]>> | undefined;
  private readonly byKey = new Map<string, Set<string>>();

  constructor(index: VaultIndex) {
    this.index = index;
  }

  /** Section ids whose text has the sha256 `key` (hex). */
  sectionsOf(key: string): Iterable<string> {
    this.built();
    return this.byKey.get(key) ?? [];
  }

  /** The notes at `paths` changed (or went): their sections are read again. */
  changed(paths: Iterable<string>): void {
    if (!this.byPath) return; // not built yet: the first read builds it from the index as it is then
    for (const path of paths) this.read(path);
  }

  private built(): void {
    if (this.byPath) return;
    this.byPath = new Map();
    for (const path of this.index.notes.keys()) this.read(path);
  }

  private read(path: string): void {
    const byPath = this.byPath!;
    for (const [key, id] of byPath.get(path) ?? []) {
      const ids = this.byKey.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.byKey.delete(key);
    }
    byPath.delete(path);
    const note = this.index.notes.get(path);
    if (!note) return;
    const pairs: Array<[string, string]> = [];
    for (const section of note.sections) {
      if (section.text.trim() === '') continue;
      const key = keyOf(section.text);
      pairs.push([key, section.id]);
      const ids = this.byKey.get(key);
      if (ids) ids.add(section.id);
      else this.byKey.set(key, new Set([section.id]));
    }
    byPath.set(path, pairs);
  }
}
