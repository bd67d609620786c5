// The first step of `mem sync` (sync-vault.ts): what the remote's branch is, by one `git
// ls-remote`, and the sync with nothing to do told from it without a fetch or the vault's lock.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../../core/cache-dir.js';
import { isOwnerAlive, readPlans } from '../../git/pending-plan.js';
import { git, gitBusy, headCommit } from '../../git/run-git.js';
import { currentBranch, fetchBranch } from '../../git/sync-git.js';
import type { VaultRepo } from '../../git/vault-git.js';

/** A killed sync's record of the work-tree update it began (`.mem/pending-sync.json`) */
export const RECORD = 'pending-sync.json';

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** The remote's branch as `git ls-remote` lists it (`sha` undefined: it has none yet). */
export interface Listed {
  /** The branch here, followed on the remote */
  branch: string;
  sha?: string;
}

/**
 * The sync with nothing to do, told by one `git ls-remote` instead of a fetch and the lock: the
 * remote's branch is this HEAD, and no killed sync or killed write waits to be finished here
 * (their records are files). A server syncs each vault every `sync.intervalSeconds`; most of those
 * find nothing, and ran some fifteen git processes and took the vault's lock each time. Otherwise
 * (or when the remote cannot be listed: the full sync says why) what was listed, for the fetch.
 */
export async function listRemote(
  root: string,
  repo: VaultRepo,
  remote: string,
): Promise<Listed & { upToDate?: true }> {
  const branch = await currentBranch(repo.repo);
  const out = await git(repo.repo, ['ls-remote', '--heads', remote, `refs/heads/${branch}`], {
    allowFail: true,
  });
  if (out === undefined) return { branch };
  const sha = out.trim().split(/\s/)[0] || undefined;
  if (!sha || (await exists(join(cacheDir(root), RECORD)))) return { branch, sha };
  if ((await readPlans(root)).plans.some((plan) => !isOwnerAlive(plan, root))) return { branch, sha };
  if ((await headCommit(repo.repo)) !== sha) return { branch, sha };
  // A merge or rebase in progress is refused, as by the full sync.
  if (await gitBusy(repo.repo)) return { branch, sha };
  // What `mem serve` counts as ahead and behind reads the remote-tracking ref: it is this commit now.
  await git(repo.repo, ['update-ref', `refs/remotes/${remote}/${branch}`, sha]);
  return { branch, sha, upToDate: true };
}

/** fetchBranch for a branch just listed: no second `ls-remote`. */
export async function fetchListed(
  repo: VaultRepo,
  remote: string,
  listed: Listed,
): Promise<string | undefined> {
  if (listed.sha === undefined) return fetchBranch(repo.repo, remote, listed.branch);
  const ref = `refs/remotes/${remote}/${listed.branch}`;
  // The remote's branch where this copy last saw it (most often: its own last push) has nothing
  // to fetch. On a server that syncs after each group commit, that is nearly every sync.
  const seen = await git(repo.repo, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { allowFail: true });
  if (seen?.trim() === listed.sha) return listed.sha;
  await git(repo.repo, ['fetch', '-q', '--no-tags', remote, `+refs/heads/${listed.branch}:${ref}`]);
  return (await git(repo.repo, ['rev-parse', `${ref}^{commit}`])).trim();
}
