import { unlink } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { WriteCommit } from '../git/commit-write.js';
import { committedBlob, diff, history } from '../git/git-history.js';
import { readPendingPlan } from '../git/pending-plan.js';
import { findVaultRepo, toRepoPath } from '../git/vault-git.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { isoWithOffset } from '../time/zoned-date.js';
import { crashPoint } from '../vault/crash-point.js';
import { archivePath, layerOf, layoutOf } from '../vault/layout.js';
import { setFrontmatterKeys } from '../vault/markdown/edit-frontmatter.js';
import { notePath, resolveInVault } from '../vault/paths.js';
import { hashText, readForWrite } from '../vault/write-note.js';
import { type Author, checkWrite } from '../vault/write-policy.js';
import { checkNoTwin, moveNote } from './move-note.js';
import { underPlan } from './write-plan.js';

export interface ForgetOptions {
  /** Why it was forgotten, written as `archived_reason` */
  reason?: string;
  /** Delete the file instead of archiving it; needs git with auto-commit, so `mem undo` can bring it back (default: false) */
  hard?: boolean;
  /** Time written as `archived` (default: now) */
  now?: Date;
  /** Runs under the write lock just before a hard delete checks the file again (tests edit it here) */
  beforeDelete?: () => Promise<void>;
  /** Who forgets (default: the person); a model's tool may not archive the persona or a day (write-policy.ts) */
  author?: Author;
}

export interface ForgetResult extends WriteCommit {
  /** The note's path before */
  path: string;
  /** Where it is now (`archive/…`); undefined after a hard delete */
  archivedAt?: string;
  /** Every vault path written or deleted */
  paths: string[];
  /** Notes whose links were rewritten to follow the note into the archive */
  rewritten: Array<{ path: string; links: number }>;
}

/**
 * Refuses a hard delete that git could not undo: no repository, auto-commit off, or a note whose
 * text on disk is not the committed one (a deletion commit would lose the difference).
 */
async function checkUndoable(root: string, config: MemConfig, path: string, stored: string): Promise<void> {
  const refuse = (why: string) =>
    new MemError(
      'INVALID_ARGUMENT',
      `${path}: not deleted: ${why}; \`mem forget\` without --hard archives it instead`,
    );
  if (!config.git.autoCommit) throw refuse('git.autoCommit is off, so the deletion could not be undone');
  const repo = await findVaultRepo(root);
  if (!repo) throw refuse('the vault is not in a git repository, so the deletion could not be undone');
  const repoPath = toRepoPath(repo, stored);
  if ((await history(repo.repo, repoPath)).length === 0) throw refuse('it was never committed');
  if ((await diff(repo.repo, undefined, [repoPath])) !== '') {
    throw refuse('it has changes that are not committed');
  }
}

/**
 * Forgets a note: moves it to `archive/<path>` with `status: archived` (links follow it, recall
 * leaves it out), or with `hard` deletes it in a commit that `mem undo` can revert.
 */
export async function forgetNote(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  path: string,
  options: ForgetOptions & { now: Date },
): Promise<ForgetResult> {
  const hardKey = `forget --hard ${notePath(path)}`;
  let found: { abs: string; rel: string };
  try {
    found = await resolveInVault(root, path, { mustExist: true });
  } catch (error) {
    // The same forget run again after a kill that came once the file was gone: only the commit is left.
    const key = options.hard ? hardKey : `forget ${notePath(path)}`;
    const pending = await readPendingPlan(root, key);
    if (!(error instanceof MemError) || error.code !== 'NOT_FOUND' || !pending) throw error;
    const commit = await underPlan(root, config, key, (steps) => steps.commit([], pending.message));
    const archivedAt = options.hard ? undefined : archivePath(notePath(path), layoutOf(config));
    return {
      path: notePath(path),
      ...(archivedAt ? { archivedAt } : {}),
      paths: pending.paths,
      rewritten: [],
      ...commit,
    };
  }
  const { abs, rel } = found;
  checkWrite({ author: options.author ?? 'person', action: 'archive', path: rel, layout: layoutOf(config) });
  await checkNoTwin(root, rel);
  if (options.hard) {
    // Git knows the file by its name on disk, which may be NFD (written on macOS).
    const stored = relative(root, abs).split(sep).join('/');
    await checkUndoable(root, config, rel, stored);
    return underPlan(root, config, hardKey, async (steps) => {
      await options.beforeDelete?.();
      const current = await readForWrite(abs);
      if (current === undefined) throw new MemError('NOT_FOUND', `${rel}: no such note`);
      // A hand edit since checkUndoable (which ran before the lock) would be lost with the file.
      const repo = await findVaultRepo(root);
      const committed = repo && (await committedBlob(repo.repo, toRepoPath(repo, stored)));
      if (committed === undefined || hashText(committed) !== current.hash) {
        throw new MemError(
          'CONFLICT',
          `${rel} changed on disk and the change is not committed; nothing was deleted`,
        );
      }
      const message = `mem: forget --hard ${rel}`;
      await steps.record([rel], message);
      await unlink(abs);
      crashPoint();
      const commit = await steps.commit([rel], message);
      return { path: rel, paths: [rel], rewritten: [], ...commit };
    });
  }
  return archiveNote(root, config, index, rel, options);
}

/** Moves a note to the archive folder (archivePath) with `status: archived`; a re-run after a kill finishes it. */
async function archiveNote(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  rel: string,
  options: ForgetOptions & { now: Date },
): Promise<ForgetResult> {
  const layout = layoutOf(config);
  if (layerOf(rel, layout) === 'archive') {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${rel} is already in ${layout.folders.archive}/; use --hard to delete it`,
    );
  }
  if (/[\r\n]/.test(options.reason ?? ''))
    throw new MemError('INVALID_ARGUMENT', 'the reason must be one line');
  const changes: Record<string, unknown> = {
    status: 'archived',
    archived: isoWithOffset(options.now, config.timezone),
  };
  if (options.reason?.trim()) changes['archived_reason'] = options.reason.trim();
  const moved = await moveNote(root, config, index, rel, archivePath(rel, layout), {
    transform: (text) => setFrontmatterKeys(text, changes, { label: rel }),
    message: `mem: forget ${rel}`,
    plan: `forget ${rel}`,
  });
  const { from, to, ...rest } = moved;
  return { ...rest, path: from, archivedAt: to };
}
