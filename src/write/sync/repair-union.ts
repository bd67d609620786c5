// Repairs a day note git merged with its built-in `union` driver: in a clone where mem's merge
// driver is not configured (a phone with obsidian-git, an app whose PATH has no `mem`), a day both
// sides wrote comes out of `git pull` with both sides' lines: an entry both kept twice, ids used
// twice, entries out of time order, frontmatter and heading doubled when the day was new on both.
// At its next write mem finds such merges (merge commits since the HEAD it last checked) and turns
// each day into what mergeDay makes of the merge's two sides, keeping any edit made after the merge
// (a three-way merge of the union's text, the note now and mergeDay's result). Only a day whose text
// in the merge is exactly git's union of its sides is touched: a merge mem made, or one a person
// resolved by hand, is left as it is. Idempotent: a repaired day merges to itself.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../../core/cache-dir.js';
import type { MemConfig } from '../../core/config/config.js';
import { readRegularText } from '../../core/regular-file.js';
import type { DeriveContent } from '../../git/commit-paths.js';
import { commitWrite } from '../../git/commit-write.js';
import { git, headCommit } from '../../git/run-git.js';
import { blobText, isAncestor, mergeBase } from '../../git/sync-git.js';
import { findVaultRepo, toVaultPath, type VaultRepo } from '../../git/vault-git.js';
import { dayOfEpisodePath } from '../../vault/episode-glob.js';
import { type VaultLockHeld, withVaultLock } from '../../vault/lock.js';
import { writeAtomic } from '../../vault/write-note.js';
import { configureMergeDriver } from './merge-driver.js';

/** `.mem/` file: the HEAD whose merges were last checked. */
const RECORD = 'union-checked';
/** Merges looked at when there is no record (a fresh clone, a cleared `.mem/`). */
const FIRST_LOOK = 30;

/** git's union merge of three texts, as `merge=union` makes it. */
async function unionOf(repo: string, base: string, ours: string, theirs: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mem-union-'));
  try {
    const [b, o, t] = ['base', 'ours', 'theirs'].map((n) => join(dir, n)) as [string, string, string];
    await Promise.all([writeFile(b, base), writeFile(o, ours), writeFile(t, theirs)]);
    return await git(repo, ['merge-file', '-p', '--union', '-q', o, b, t]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Fix {
  vaultPath: string;
  name: string;
  /** The day's text in the union merge, and what mergeDay makes of that merge */
  union: string;
  expected: string;
}

/** The union-merged days of the merges in `range` (rev-list arguments), newest merge of each day. */
async function unionDays(
  repo: VaultRepo,
  config: Pick<MemConfig, 'layout'>,
  range: string[],
): Promise<Fix[]> {
  const merges = (await git(repo.repo, ['rev-list', '--merges', '--parents', ...range]))
    .split('\n')
    .map((l) => l.split(' '))
    .filter((l) => l.length === 3);
  if (merges.length === 0) return [];
  const { mergeDay } = await import('./merge-day.js');
  const seen = new Set<string>();
  const fixes: Fix[] = [];
  for (const [merge, p1, p2] of merges as [string, string, string][]) {
    // Paths the merge holds differently from both parents: those a three-way merge combined.
    const out = await git(repo.repo, ['diff-tree', '-r', '-c', '-z', '--name-only', '--no-commit-id', merge]);
    for (const path of out.split('\0').filter(Boolean)) {
      const vaultPath = toVaultPath(repo, path);
      if (vaultPath === undefined || seen.has(path) || !dayOfEpisodePath(vaultPath, config)) continue;
      seen.add(path);
      const base = await mergeBase(repo.repo, p1, p2);
      const [b, o, t, union] = await Promise.all(
        [base, p1, p2, merge].map((rev) => (rev ? blobText(repo.repo, rev, path) : undefined)),
      );
      if (o === undefined || t === undefined || union === undefined) continue;
      const name = vaultPath.slice(vaultPath.lastIndexOf('/') + 1).replace(/\.md$/, '');
      const expected = mergeDay(b ?? '', o, t, name).text;
      if (union === expected || (await unionOf(repo.repo, b ?? '', o, t)) !== union) continue;
      fixes.push({ vaultPath, name, union, expected });
    }
  }
  return fixes;
}

/**
 * Repairs the day notes git union-merged since the HEAD last checked (see the file comment) and
 * commits them; returns the vault paths rewritten. Cheap when HEAD has not moved: one `git
 * rev-parse` and one small file read.
 */
export async function repairUnionDays(
  lock: VaultLockHeld,
  root: string,
  repo: VaultRepo,
  config: Pick<MemConfig, 'layout' | 'git'>,
): Promise<string[]> {
  const head = await headCommit(repo.repo);
  if (!head) return [];
  const record = join(cacheDir(root), RECORD);
  const checked = (await readRegularText(record).catch(() => '')).trim();
  if (checked === head) return [];
  const range =
    /^[0-9a-f]{40,64}$/.test(checked) && (await isAncestor(repo.repo, checked, head))
      ? [`${checked}..${head}`]
      : ['-n', String(FIRST_LOOK), head];
  const fixes = await unionDays(repo, config, range);
  const written: string[] = [];
  // What is committed is the repair of the committed day, never a person's edit not yet committed.
  const derived = new Map<string, DeriveContent>();
  if (fixes.length > 0) {
    const { mergeDay } = await import('./merge-day.js');
    for (const fix of fixes) {
      const abs = join(root, fix.vaultPath);
      const now = await readRegularText(abs).catch(() => undefined);
      if (now === undefined) continue;
      // Edits made since the merge stay: the repair is merged into them.
      const fixed = now === fix.union ? fix.expected : mergeDay(fix.union, now, fix.expected, fix.name).text;
      if (fixed === now) continue;
      await writeAtomic(abs, fixed, { label: fix.vaultPath });
      written.push(fix.vaultPath);
      derived.set(fix.vaultPath, (committed) =>
        committed === undefined || committed === fix.union
          ? fix.expected
          : mergeDay(fix.union, committed, fix.expected, fix.name).text,
      );
    }
    if (written.length > 0)
      await commitWrite(
        lock,
        root,
        config,
        written,
        `mem: repair ${written.join(', ')} after git's union merge (each entry once, ids unique, in time order)`,
        derived,
      );
  }
  await ensureCacheDir(root);
  // HEAD moved only if a repair was committed.
  const now = written.length > 0 ? ((await headCommit(repo.repo)) ?? head) : head;
  await writeAtomic(record, `${now}\n`, { label: `.mem/${RECORD}` });
  return written;
}

/**
 * What every mem write does first, once a process for each vault (the api's write queue calls it
 * before its first write): sets the merge driver in the repository's config where it is missing,
 * and repairs the days git union-merged since the last check. Returns the vault paths repaired.
 */
export async function prepareVaultWrites(
  root: string,
  config: Pick<MemConfig, 'layout' | 'git'>,
): Promise<string[]> {
  const repo = await findVaultRepo(root);
  if (!repo) return [];
  await configureMergeDriver(repo.repo);
  return repairIn(root, repo, config);
}

/** After a sync: repairs the days it brought that git union-merged elsewhere (see repairUnionDays). */
export async function repairAfterSync(
  root: string,
  config: Pick<MemConfig, 'layout' | 'git'>,
): Promise<string[]> {
  const repo = await findVaultRepo(root);
  return repo ? repairIn(root, repo, config) : [];
}

const repairIn = (root: string, repo: VaultRepo, config: Pick<MemConfig, 'layout' | 'git'>) =>
  withVaultLock(root, (lock) => repairUnionDays(lock, root, repo, config));
