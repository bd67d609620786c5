// Commits exactly the given paths through a temporary index, leaving the user's index and other files alone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { readRegularText } from '../core/regular-file.js';
import { findOnDisk } from '../vault/paths.js';
import { checkRepoPath, exists, git, gitBusy, headCommit } from './run-git.js';

export interface CommitOptions {
  /** Run the repository's commit hooks (`git.runHooks`; default: none runs) */
  runHooks?: boolean;
}

/**
 * Why a write was not committed, as a code for callers to act on; `reason` says it to a person.
 * `busy` and `refused` may pass (another git finishes, a hook is fixed); the others are final.
 */
export type NotCommitted =
  /** The vault is in no git repository (or there is no git) */
  | 'no-repository'
  /** `git.autoCommit` is off */
  | 'auto-commit-off'
  /** No paths were given, or the files match the last commit */
  | 'unchanged'
  /** Another git is running, a merge or rebase is in progress, HEAD is detached or kept moving */
  | 'busy'
  /** A commit hook refused the commit */
  | 'refused'
  /** git ignores a path to commit */
  | 'ignored'
  /** The write changed nothing, so there was nothing to commit (a note already so) */
  | 'no-change'
  /** Nothing was written because none was asked for: a dry run */
  | 'dry-run'
  /** The caller commits later (several writes as one commit) */
  | 'deferred'
  /** The run found nothing to write */
  | 'nothing-to-write';

export interface CommitResult {
  committed: boolean;
  sha?: string;
  /** Why nothing was committed (or what went wrong after the commit), for a person */
  reason?: string;
  /** Why nothing was committed, for code (see NotCommitted); unset when committed */
  code?: NotCommitted;
}

/** `-c user.name=… -c user.email=…` when the repository has no identity, so a commit never fails on it. */
export async function identityArgs(repoRoot: string): Promise<string[]> {
  const args: string[] = [];
  // One process for both: `config --get-regexp` reads every scope and include, as `config <key>` does.
  const set = await git(repoRoot, ['config', '-z', '--get-regexp', '^user\\.(name|email)$'], {
    allowFail: true,
  });
  const values = new Map<string, string>();
  for (const record of (set ?? '').split('\0')) {
    const at = record.indexOf('\n');
    if (at > 0) values.set(record.slice(0, at), record.slice(at + 1));
  }
  if (!values.get('user.name')?.trim()) args.push('-c', 'user.name=memvault');
  if (!values.get('user.email')?.trim()) args.push('-c', 'user.email=memvault@localhost');
  return args;
}

/**
 * For a path mem only appended to: the text to commit, made from the committed text (undefined when
 * the file is new) plus mem's own lines, so a person's uncommitted edit of the file stays theirs.
 * Undefined leaves the path out of the commit (a person's note git does not have: mem invents no
 * version of it).
 */
export type DeriveContent = (committed: string | undefined) => string | undefined;

/** A path's entry in HEAD's tree, asked of git once per commit attempt (stagedChanges and stageDerived both read it). */
class HeadEntries {
  private readonly known = new Map<string, Promise<{ mode: string; sha: string } | undefined>>();

  constructor(
    private readonly repoRoot: string,
    readonly head: string | undefined,
  ) {}

  of(path: string): Promise<{ mode: string; sha: string } | undefined> {
    const { head } = this;
    if (!head) return Promise.resolve(undefined);
    let found = this.known.get(path);
    if (!found) {
      found = git(this.repoRoot, ['ls-tree', '-z', head, '--', path]).then((out) => {
        const [mode, , sha] = (out.split('\t')[0] ?? '').split(' ');
        return mode && sha ? { mode, sha } : undefined;
      });
      this.known.set(path, found);
    }
    return found;
  }
}

/** A derived path as staged: its index entry, and whether its blob differs from HEAD's. */
interface StagedEntry {
  cacheinfo: string;
  changed: boolean;
}

/**
 * Stages `derive(committed)` for each path in the private index instead of the file on disk; returns
 * what it staged.
 */
async function stageDerived(
  repoRoot: string,
  env: Record<string, string>,
  inHead: HeadEntries,
  derived: Map<string, DeriveContent>,
): Promise<Map<string, StagedEntry>> {
  const staged = new Map<string, StagedEntry>();
  for (const [path, derive] of derived) {
    const entry = await inHead.of(path);
    const mode = entry?.mode ?? '100644';
    const committed = entry ? await git(repoRoot, ['cat-file', 'blob', entry.sha]) : undefined;
    const text = derive(committed);
    if (text === undefined) continue;
    const sha = (await git(repoRoot, ['hash-object', '-w', '--stdin'], { input: text })).trim();
    const cacheinfo = `${mode},${sha},${path}`;
    await git(repoRoot, ['update-index', '--add', '--cacheinfo', cacheinfo], { env });
    staged.set(path, { cacheinfo, changed: sha !== entry?.sha });
  }
  return staged;
}

/**
 * The paths git ignores among those about to be staged: an untracked file the user ignores stays
 * out of git, as `git add` would keep it. A derived path HEAD already holds is tracked, which
 * check-ignore never reports: when only such paths are staged (a chat's day note), git is not asked.
 */
async function ignoredPaths(
  repoRoot: string,
  env: Record<string, string>,
  present: string[],
  derived: Map<string, DeriveContent>,
  inHead: HeadEntries,
): Promise<Set<string>> {
  const toCheck = [...present];
  for (const path of derived.keys()) if (!(await inHead.of(path))) toCheck.push(path);
  if (toCheck.length === 0) return new Set();
  const out = await git(repoRoot, ['check-ignore', '-z', '--stdin'], {
    // check-ignore refuses to run at all under GIT_LITERAL_PATHSPECS (it read as "nothing ignored").
    env: { ...env, GIT_LITERAL_PATHSPECS: '0' },
    input: toCheck.join('\0'),
    allowFail: true,
  });
  return new Set(out?.split('\0').filter(Boolean) ?? []);
}

/** A commit built: its id and tree, and the index entries of its paths when known without asking git. */
interface Built {
  commit: string;
  tree: string;
  entries?: Map<string, string>;
}

/** Builds a commit of exactly `paths` on top of HEAD in a private index; returns the new commit and tree. */
async function buildCommit(
  repoRoot: string,
  paths: string[],
  message: string,
  inHead: HeadEntries,
  derived: Map<string, DeriveContent> = new Map(),
  runHooks = false,
): Promise<Built | { ignored: string[] } | { refused: string } | undefined> {
  const { head } = inHead;
  const temp = await mkdtemp(join(tmpdir(), 'mem-index-'));
  const env = { GIT_INDEX_FILE: join(temp, 'index') };
  try {
    await git(repoRoot, head ? ['read-tree', head] : ['read-tree', '--empty'], { env });
    const present: string[] = [];
    const gone: string[] = [];
    for (const path of paths) {
      if (derived.has(path)) continue;
      ((await exists(join(repoRoot, path))) ? present : gone).push(path);
    }
    const ignored = await ignoredPaths(repoRoot, env, present, derived, inHead);
    const toAdd = present.filter((path) => !ignored.has(path));
    const toDerive = new Map([...derived].filter(([path]) => !ignored.has(path)));
    if (toAdd.length === 0 && gone.length === 0 && toDerive.size === 0 && ignored.size > 0) {
      return { ignored: [...ignored] };
    }
    const nul = { env, input: `${toAdd.join('\0')}\0` };
    if (toAdd.length > 0) await git(repoRoot, ['add', '--pathspec-from-file=-', '--pathspec-file-nul'], nul);
    if (gone.length > 0) {
      const input = `${gone.join('\0')}\0`;
      const rm = [
        'rm',
        '--cached',
        '-q',
        '--ignore-unmatch',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ];
      await git(repoRoot, rm, { env, input });
    }
    const staged = await stageDerived(repoRoot, env, inHead, toDerive);
    const onlyDerived = toAdd.length === 0 && gone.length === 0;
    const built = await commitIndex(repoRoot, env, temp, message, head, {
      runHooks,
      // A blob staged over HEAD's own differs from it: the tree does, without asking git for HEAD's.
      changed: onlyDerived && [...staged.values()].some((entry) => entry.changed),
    });
    if (!built || 'refused' in built) return built;
    // The real index gets what was staged; git is asked only when a path was staged by git itself.
    const known = onlyDerived && paths.every((path) => staged.has(path));
    return known ? { ...built, entries: new Map([...staged].map(([p, e]) => [p, e.cacheinfo])) } : built;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * The commit of the private index on top of `head`, undefined when its tree is HEAD's. `changed`:
 * the tree is known to differ (skips asking git for HEAD's tree unless a hook may restage).
 */
async function commitIndex(
  repoRoot: string,
  env: Record<string, string>,
  temp: string,
  message: string,
  head: string | undefined,
  { runHooks, changed }: { runHooks: boolean; changed: boolean },
): Promise<Built | { refused: string } | undefined> {
  const headTree =
    head && (runHooks || !changed)
      ? (await git(repoRoot, ['rev-parse', `${head}^{tree}`])).trim()
      : undefined;
  let tree = (await git(repoRoot, ['write-tree'], { env })).trim();
  if (tree === headTree) return undefined;
  let text = message;
  if (runHooks) {
    // As `git commit` runs them: pre-commit sees (and may restage) the index being committed,
    // commit-msg may rewrite the message; either one failing stops the commit.
    const refused = await runHook(repoRoot, env, 'pre-commit', []);
    if (refused) return { refused };
    const file = join(temp, 'COMMIT_EDITMSG');
    await writeFile(file, message);
    const rejected = await runHook(repoRoot, env, 'commit-msg', [file]);
    if (rejected) return { refused: rejected };
    text = await readRegularText(file);
    // pre-commit may have restaged the index.
    tree = (await git(repoRoot, ['write-tree'], { env })).trim();
    if (tree === headTree) return undefined;
  }
  const identity = await identityArgs(repoRoot);
  const parents = head ? ['-p', head] : [];
  const commit = (
    await git(repoRoot, [...identity, 'commit-tree', tree, ...parents, '-F', '-'], { input: text })
  ).trim();
  return { commit, tree };
}

/** Runs one of the repository's hooks (`git hook run`, git 2.36+); the reason it failed, or undefined. */
async function runHook(
  repoRoot: string,
  env: Record<string, string>,
  name: string,
  args: string[],
): Promise<string | undefined> {
  try {
    await git(repoRoot, ['hook', 'run', '--ignore-missing', name, '--', ...args], { env, hooks: true });
    return undefined;
  } catch (error) {
    return `the ${name} hook failed (git.runHooks is on), so mem did not commit: ${(error as Error).message}`;
  }
}

/**
 * Makes the real index agree with the commit for just these paths, so `git status` shows them
 * clean. `known`: their entries as staged, when every path's is known (no `ls-tree` then).
 */
async function syncIndex(
  repoRoot: string,
  paths: string[],
  commit: string,
  known?: Map<string, string>,
): Promise<void> {
  const inTree = known ?? new Map<string, string>();
  if (!known) {
    const listing = await git(repoRoot, ['ls-tree', '-z', commit, '--', ...paths]);
    for (const entry of listing.split('\0').filter(Boolean)) {
      const [meta, path] = entry.split('\t');
      const [mode, , sha] = (meta ?? '').split(' ');
      if (path && mode && sha) inTree.set(path, `${mode},${sha},${path}`);
    }
  }
  const adds = paths.flatMap((path) => {
    const info = inTree.get(path);
    return info ? ['--cacheinfo', info] : [];
  });
  const removes = paths.filter((path) => !inTree.has(path));
  if (adds.length > 0) await git(repoRoot, ['update-index', '--add', ...adds]);
  if (removes.length > 0) await git(repoRoot, ['update-index', '--force-remove', '--', ...removes]);
}

/**
 * For the derived paths a person has staged a change to (the index differs from HEAD): the staged
 * text and mode. mem's commit leaves HEAD's version plus mem's lines, so the index must get the
 * staged text plus mem's lines back, or the person's staged change would be unstaged.
 */
async function stagedChanges(
  repoRoot: string,
  inHead: HeadEntries,
  derived: Map<string, DeriveContent>,
): Promise<Map<string, { mode: string; text: string }>> {
  const staged = new Map<string, { mode: string; text: string }>();
  for (const path of derived.keys()) {
    const entry = (await git(repoRoot, ['ls-files', '-s', '-z', '--', path])).split('\0')[0] ?? '';
    const [mode, sha, stage] = (entry.split('\t')[0] ?? '').split(' ');
    if (!mode || !sha || stage !== '0') continue;
    if ((await inHead.of(path))?.sha === sha) continue;
    staged.set(path, { mode, text: await git(repoRoot, ['cat-file', 'blob', sha]) });
  }
  return staged;
}

/** Puts each person's staged text back into the index, with mem's lines added to it. */
async function restageChanges(
  repoRoot: string,
  staged: Map<string, { mode: string; text: string }>,
  derived: Map<string, DeriveContent>,
): Promise<void> {
  for (const [path, { mode, text }] of staged) {
    const derive = derived.get(path);
    if (!derive) continue;
    const sha = (await git(repoRoot, ['hash-object', '-w', '--stdin'], { input: derive(text) })).trim();
    await git(repoRoot, ['update-index', '--cacheinfo', `${mode},${sha},${path}`]);
  }
}

/**
 * The paths as git must be given them: a file that exists by its name on disk (macOS may have stored
 * it NFD, and git on Linux compares bytes); a deleted one in both its NFC and NFD forms, so the
 * index entry goes whichever form it was committed in.
 */
async function storedForms(repoRoot: string, paths: string[]): Promise<string[]> {
  const forms: string[] = [];
  for (const path of paths) {
    if (/^[\x20-\x7e]*$/.test(path)) {
      forms.push(path);
      continue;
    }
    const abs = await findOnDisk(repoRoot, path);
    if (await exists(abs)) forms.push(relative(repoRoot, abs).split(sep).join('/'));
    else forms.push(path.normalize('NFC'), path.normalize('NFD'));
  }
  return [...new Set(forms)];
}

/**
 * Commits exactly `paths` (relative to the repository root; added, changed or deleted) and nothing
 * else: the commit is built in a private index and HEAD is moved by compare-and-swap, so the user's
 * staged and unstaged changes to other files stay exactly as they were. The repository's hooks
 * run only with `runHooks` (pre-commit, commit-msg, post-commit, as `git commit` would run them).
 */
export async function commitPaths(
  repoRoot: string,
  paths: string[],
  message: string,
  derived: Map<string, DeriveContent> = new Map(),
  options: CommitOptions = {},
): Promise<CommitResult> {
  const unique = await storedForms(repoRoot, [...new Set(paths.map(checkRepoPath))]);
  if (unique.length === 0) return { committed: false, code: 'unchanged', reason: 'no paths to commit' };
  for (let attempt = 0; attempt < 3; attempt++) {
    const busy = await gitBusy(repoRoot);
    if (busy) return { committed: false, code: 'busy', reason: busy };
    const head = await headCommit(repoRoot);
    const inHead = new HeadEntries(repoRoot, head);
    const staged = await stagedChanges(repoRoot, inHead, derived);
    const built = await buildCommit(repoRoot, unique, message, inHead, derived, options.runHooks);
    if (!built) {
      // A process killed between moving HEAD and refreshing the index leaves these paths looking
      // changed in `git status` though HEAD has them: refresh them now (best effort).
      if (head) await syncIndex(repoRoot, unique, head).catch(() => undefined);
      return {
        committed: false,
        code: 'unchanged',
        reason: 'nothing to commit: the files match the last commit',
      };
    }
    if ('refused' in built) return { committed: false, code: 'refused', reason: built.refused };
    if ('ignored' in built) {
      return {
        committed: false,
        code: 'ignored',
        reason: `git ignores ${built.ignored.join(', ')} (a .gitignore lists it or a folder above it); mem did not commit`,
      };
    }
    // Compare-and-swap on HEAD: another tool (an auto-commit plugin) may have committed meanwhile.
    const moved = await git(
      repoRoot,
      ['update-ref', '-m', message.split('\n')[0] ?? message, 'HEAD', built.commit, head ?? ''],
      {
        allowFail: true,
      },
    );
    if (moved === undefined) continue;
    try {
      await syncIndex(repoRoot, unique, built.commit, built.entries);
      await restageChanges(repoRoot, staged, derived);
    } catch (error) {
      return {
        committed: true,
        sha: built.commit,
        reason: `committed, but the index was not refreshed: ${(error as Error).message}`,
      };
    }
    if (options.runHooks) await runHook(repoRoot, {}, 'post-commit', []);
    return { committed: true, sha: built.commit };
  }
  return {
    committed: false,
    code: 'busy',
    reason: 'HEAD kept moving while mem committed (another tool is committing); try again',
  };
}
