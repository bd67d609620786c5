// After a merge: links that one side wrote to a note the other side moved (`mem mv`, `mem forget`
// into archive/) point at the note's new path, as `mem mv` would have rewritten them had the note
// been moved on the writing side. Fills `files` (repository path → merged text), as sync-conflicts.
import { git } from '../../git/run-git.js';
import { blobText } from '../../git/sync-git.js';
import { toRepoPath, toVaultPath, type VaultRepo } from '../../git/vault-git.js';
import { PathIndex, resolveLink } from '../../vault/links/resolve-link.js';
import { parseNote } from '../../vault/markdown/parse-note.js';
import { type LinkEdit, retargetLink, spliceLinks } from '../rewrite-links.js';

/** Vault paths of a tree's files. */
async function vaultPaths(repo: VaultRepo, rev: string): Promise<string[]> {
  const out = await git(repo.repo, ['ls-tree', '-r', '--name-only', '-z', rev]);
  return out.split('\0').flatMap((p) => (p ? (toVaultPath(repo, p) ?? []) : []));
}

/** Notes a side moved since `base` (vault paths: old → new), as git's rename detection pairs them. */
async function movesOf(repo: VaultRepo, base: string, side: string): Promise<Map<string, string>> {
  const out = await git(repo.repo, ['diff', '-M', '--name-status', '-z', '--diff-filter=R', base, side]);
  const parts = out.split('\0');
  const moves = new Map<string, string>();
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const from = toVaultPath(repo, parts[i + 1]!);
    const to = toVaultPath(repo, parts[i + 2]!);
    if (from && to) moves.set(from, to);
  }
  return moves;
}

export interface MergeSides {
  base: string;
  head: string;
  theirs: string;
  /** git's merged tree */
  tree: string;
  /** Repository paths each side changed since `base` */
  changed: { head: string[]; theirs: string[] };
  files: Map<string, string | null>;
}

/** See the file comment. */
export async function retargetMovedLinks(repo: VaultRepo, m: MergeSides): Promise<void> {
  const after = new PathIndex();
  for (const p of await vaultPaths(repo, m.tree)) after.add(p);
  for (const [path, text] of m.files) {
    const v = toVaultPath(repo, path);
    if (v === undefined) continue;
    if (text === null) after.remove(v);
    else after.add(v);
  }
  const sides: Array<[mover: string, writer: string, written: string[]]> = [
    [m.head, m.theirs, m.changed.theirs],
    [m.theirs, m.head, m.changed.head],
  ];
  for (const [mover, writer, written] of sides) {
    const moves = await movesOf(repo, m.base, mover);
    if (moves.size === 0) continue;
    const before = new PathIndex();
    for (const p of await vaultPaths(repo, writer)) before.add(p);
    for (const repoPath of written) {
      const path = toVaultPath(repo, repoPath);
      if (!path?.endsWith('.md') || !after.has(path)) continue;
      const text = m.files.has(repoPath)
        ? m.files.get(repoPath)
        : await blobText(repo.repo, m.tree, repoPath);
      if (typeof text !== 'string') continue;
      const edits: LinkEdit[] = [];
      for (const link of parseNote(path, text).links) {
        if (link.target === '') continue;
        const was = resolveLink(link.target, path, before);
        const dest = was === undefined ? undefined : moves.get(was);
        if (dest === undefined || !after.has(dest) || resolveLink(link.target, path, after) === dest)
          continue;
        edits.push({ ...link, replacement: retargetLink(link, path, dest, after) });
      }
      if (edits.length > 0) m.files.set(toRepoPath(repo, path), spliceLinks(text, edits, path));
    }
  }
}
