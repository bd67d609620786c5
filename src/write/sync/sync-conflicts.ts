// What `mem sync` puts in place of a conflict git could not merge, and the links it rewrites after
// a day note's entries were renumbered. Both fill `files` (repository path → text, null: deleted),
// the changes the merge commit makes over git's merged tree.
import { posix } from 'node:path';
import { blobById, blobText, type Conflicted } from '../../git/sync-git.js';
import { toVaultPath, type VaultRepo } from '../../git/vault-git.js';
import { rewriteDayLinks } from './merge-day.js';

/** Names a conflict note: `people/Mei.md` → `people/Mei.conflict-1a2b3c4.md`. */
export function conflictName(path: string, short: string): string {
  const ext = posix.extname(path);
  return `${path.slice(0, path.length - ext.length)}.conflict-${short}${ext}`;
}

/**
 * Resolves git's conflicts keeping both versions: ours stays in place (with a line linking the
 * other version), theirs goes to a conflict note beside it; a note one side deleted and the other
 * changed stays, changed. Returns the conflict notes written (vault paths).
 */
export async function mergeConflicted(
  repo: VaultRepo,
  conflicts: Conflicted[],
  short: string,
  files: Map<string, string | null>,
): Promise<string[]> {
  const written: string[] = [];
  for (const { path, stages } of conflicts) {
    const [ours, theirs] = await Promise.all([
      stages[2] ? blobById(repo.repo, stages[2]) : undefined,
      stages[3] ? blobById(repo.repo, stages[3]) : undefined,
    ]);
    if (ours === undefined || theirs === undefined) {
      const kept = ours ?? theirs;
      if (kept !== undefined) files.set(path, kept);
      continue;
    }
    const other = conflictName(path, short);
    const vaultOther = toVaultPath(repo, other) ?? other;
    const note = path.endsWith('.md')
      ? `${ours}${ours.endsWith('\n') || ours === '' ? '' : '\n'}\n> [!warning] mem sync: this note was also changed in another copy of the vault; that version is [[${vaultOther.replace(/\.md$/, '')}]]\n`
      : ours;
    files.set(path, note);
    files.set(other, theirs);
    written.push(vaultOther);
  }
  return written;
}

export interface TheirLinks {
  /** git's merged tree */
  tree: string;
  head: string;
  theirs: string;
  /** Repository paths theirs changed */
  paths: string[];
  /** Per day (YYYY-MM-DD), theirs' renumbered ids */
  days: Map<string, Map<string, string>>;
  files: Map<string, string | null>;
}

/**
 * Rewrites, in the notes theirs changed, the links theirs wrote to entries that got a new id: a
 * line with such a link that theirs' version holds and ours' does not.
 */
export async function rewriteTheirLinks(repo: VaultRepo, links: TheirLinks): Promise<void> {
  if (links.days.size === 0) return;
  for (const path of links.paths) {
    if (!path.endsWith('.md')) continue;
    const vaultPath = toVaultPath(repo, path) ?? path;
    const own = vaultPath.slice(vaultPath.lastIndexOf('/') + 1).replace(/\.md$/, '');
    const current = links.files.has(path)
      ? links.files.get(path)
      : await blobText(repo.repo, links.tree, path);
    if (current === null || current === undefined || !current.includes('#^')) continue;
    const [ours, theirs] = await Promise.all([
      blobText(repo.repo, links.head, path),
      blobText(repo.repo, links.theirs, path),
    ]);
    const ourLines = new Set((ours ?? '').split('\n'));
    const theirLines = new Set((theirs ?? '').split('\n'));
    let changed = false;
    const next = current
      .split('\n')
      .map((line) => {
        if (!theirLines.has(line) || ourLines.has(line)) return line;
        let out = line;
        for (const [date, map] of links.days) {
          // A day note's own lines were rewritten by its merge.
          if (date !== own) out = rewriteDayLinks(out, date, map);
        }
        changed ||= out !== line;
        return out;
      })
      .join('\n');
    if (changed) links.files.set(path, next);
  }
}
