import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseNote } from '../vault/parse-note.js';
import { readVault, type VaultFile } from '../vault/read-vault.js';
import type { VaultIndex } from './vault-index.js';

export interface RefreshStats {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
}

export function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** How many files are read at once: enough to hide disk latency, few enough to keep memory flat. */
const READ_BATCH = 64;

/**
 * Brings `index` up to date with the files on disk. A file whose size and mtime match the indexed
 * version is not read; one whose content hash matches is not parsed again.
 */
export async function refreshIndex(root: string, index: VaultIndex): Promise<RefreshStats> {
  const files = await readVault(root);
  const stats: RefreshStats = { added: 0, changed: 0, removed: 0, unchanged: 0 };
  const seen = new Set<string>();
  const toRead: VaultFile[] = [];
  for (const file of files) {
    seen.add(file.path);
    const known = index.notes.get(file.path);
    if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) stats.unchanged++;
    else toRead.push(file);
  }
  for (let i = 0; i < toRead.length; i += READ_BATCH) {
    const batch = toRead.slice(i, i + READ_BATCH);
    const texts = await Promise.all(batch.map((file) => readFile(file.abs, 'utf8').catch(() => undefined)));
    batch.forEach((file, j) => {
      const text = texts[j];
      if (text === undefined) return; // removed while we read; the next refresh drops it
      const known = index.notes.get(file.path);
      if (known && known.hash === hashText(text)) {
        known.mtimeMs = file.mtimeMs;
        known.size = file.size;
        stats.unchanged++;
        return;
      }
      index.upsert(parseNote(file.path, text, { size: file.size, mtimeMs: file.mtimeMs }));
      if (known) stats.changed++;
      else stats.added++;
    });
  }
  for (const path of [...index.notes.keys()]) {
    if (!seen.has(path) && index.remove(path)) stats.removed++;
  }
  return stats;
}
