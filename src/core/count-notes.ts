import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isIgnoredName } from './ignored-path.js';

/**
 * How many notes lie below `root`, counted up to `atMost` and no further: enough to tell whether a
 * vault is big enough for a daemon without walking all of a large one. Names only (no `stat`), and
 * symlinks are not followed: a count, not the vault's listing (vault/read-vault.ts).
 */
export function countNotes(root: string, atMost: number): number {
  let count = 0;
  const folders = [root];
  for (let dir = folders.pop(); dir !== undefined && count < atMost; dir = folders.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (isIgnoredName(entry.name)) continue;
      if (entry.isDirectory()) folders.push(join(dir, entry.name));
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md') && ++count >= atMost) break;
    }
  }
  return count;
}
