// Vaults that live in git remotes (`mem serve --vaults DIR --remote <template>`): a server holds a
// working copy of each vault it serves, cloned from the vault's own repository on first use; the
// remote is the durable copy and the way a vault moves between servers. Only plain git commands on
// the server's own folders: the vault's writes, commits and merges stay the library's (initVault,
// Vault.sync).
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MemError } from '../../core/errors.js';

export interface RemoteOptions {
  /** The repository URL of a vault, with `{agent}` and `{user}` (`git://host/{agent}/{user}.git`) */
  template: string;
  /**
   * A shell command that makes the vault's repository on the git server when it does not exist
   * (idempotent), with `{agent}`, `{user}` and `{url}` replaced, also given as MEM_AGENT_ID,
   * MEM_USER_ID and MEM_REMOTE_URL. git daemon and git http-backend cannot create a repository
   * over the wire; Gitea and GitLab can through their API. Without it, a user's repository must
   * exist (empty for a new user) before their first request.
   */
  create?: string;
}

/** The environment of every git process here: no prompt for a password, no repository of the caller's. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_PREFIX'])
    delete env[name];
  return env;
}

function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd, env: options.env ?? gitEnv() }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr).trim() }),
    );
  });
}

/** The remote of one vault. Ids are letters, digits, `_` and `-` (parseVaultId): nothing to escape. */
export function remoteUrl(template: string, agentId: string, userId: string): string {
  return template.replaceAll('{agent}', agentId).replaceAll('{user}', userId);
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** Whether `root` is a git working copy with at least one commit. */
export async function hasCommits(root: string): Promise<boolean> {
  if (!(await exists(join(root, '.git')))) return false;
  return (await run('git', ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: root })).ok;
}

/**
 * Creates in flight, by URL. A new user's first search (answered `partial` while its vault loads)
 * checks the remote while the first add clones it: both run the create command, and two `git init`
 * of one repository at once fail on its config lock. One waits for the other instead.
 */
const creating = new Map<string, Promise<void>>();

function createRemote(command: string, url: string, agentId: string, userId: string): Promise<void> {
  let running = creating.get(url);
  if (!running) {
    running = runCreate(command, url, agentId, userId).finally(() => creating.delete(url));
    creating.set(url, running);
  }
  return running;
}

async function runCreate(command: string, url: string, agentId: string, userId: string): Promise<void> {
  const line = command.replaceAll('{agent}', agentId).replaceAll('{user}', userId).replaceAll('{url}', url);
  const env = { ...gitEnv(), MEM_AGENT_ID: agentId, MEM_USER_ID: userId, MEM_REMOTE_URL: url };
  const result = await run('/bin/sh', ['-c', line], { env });
  if (!result.ok)
    throw new MemError('GIT', `the command that creates ${url} failed: ${result.stderr || 'no message'}`);
}

/**
 * Brings the vault's repository to `root` when it is not there: `cloned` (a user's vault with its
 * history), `empty` (the remote has no commit yet: a new user), `present` (a working copy with
 * history was already here). The clone goes to a temporary folder renamed into place, so a server
 * killed mid-clone leaves no half vault. A remote that cannot be read is an error, never an empty
 * vault: a new history written beside the user's would be refused by every later sync.
 */
export async function fetchVault(
  root: string,
  options: RemoteOptions,
  agentId: string,
  userId: string,
): Promise<'cloned' | 'empty' | 'present'> {
  if (await hasCommits(root)) return 'present';
  const url = remoteUrl(options.template, agentId, userId);
  if (options.create) await createRemote(options.create, url, agentId, userId);
  const parent = dirname(root);
  await mkdir(parent, { recursive: true });
  // A dot first: never a vault id (parseVaultId), so no request can name it.
  const temp = join(parent, `.clone-${userId}-${process.pid}-${Date.now()}`);
  const cloned = await run('git', ['clone', '-q', '--no-tags', url, temp]);
  if (!cloned.ok) {
    await rm(temp, { recursive: true, force: true });
    throw new MemError('GIT', `cannot clone ${url}: ${cloned.stderr || 'git clone failed'}`);
  }
  // A working copy without commits (a new user's earlier empty clone) is replaced, never trusted.
  await rm(root, { recursive: true, force: true });
  await rename(temp, root);
  return (await hasCommits(root)) ? 'cloned' : 'empty';
}

/**
 * Whether the vault's remote holds a history (`git ls-remote`, one process and no clone): a read of
 * a vault that is not here answers "no memories" for a new user without cloning an empty
 * repository. A repository that cannot be read is made first when `create` is set (a new user's
 * first request), else it is an error, never "empty": the git server may be down.
 */
export async function remoteHasHistory(
  options: RemoteOptions,
  agentId: string,
  userId: string,
): Promise<boolean> {
  const url = remoteUrl(options.template, agentId, userId);
  let heads = await run('git', ['ls-remote', '--heads', url]);
  if (!heads.ok && options.create) {
    await createRemote(options.create, url, agentId, userId);
    heads = await run('git', ['ls-remote', '--heads', url]);
  }
  if (!heads.ok) throw new MemError('GIT', `cannot read ${url}: ${heads.stderr || 'git ls-remote failed'}`);
  return heads.stdout.trim() !== '';
}

/**
 * Pushes a new vault's first commit. `false` when the remote got a history meanwhile (another
 * server created this user's vault first): the caller drops its copy, which holds no add yet, and
 * clones theirs.
 */
export async function pushFirst(root: string): Promise<boolean> {
  const branch = (await run('git', ['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: root })).stdout.trim();
  const pushed = await run('git', ['push', '-q', 'origin', `HEAD:refs/heads/${branch || 'main'}`], {
    cwd: root,
  });
  if (pushed.ok) return true;
  const heads = await run('git', ['ls-remote', '--heads', 'origin'], { cwd: root });
  if (heads.ok && heads.stdout.trim() !== '') return false;
  throw new MemError('GIT', `cannot push the new vault to its remote: ${pushed.stderr || 'git push failed'}`);
}

/**
 * Vaults under `dir` a killed server left work in: adds in the journal (`.mem/adds.jsonl`), or
 * commits its remote does not have. A restarted server loads them at once, so what it accepted
 * goes out without waiting for the user's next request.
 */
export async function vaultsWithWork(dir: string): Promise<Array<{ agentId: string; userId: string }>> {
  const found: Array<{ agentId: string; userId: string }> = [];
  const names = async (path: string) =>
    (await readdir(path, { withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
  for (const agentId of await names(dir)) {
    for (const userId of await names(join(dir, agentId))) {
      const root = join(dir, agentId, userId);
      const journal = await stat(join(root, '.mem', 'adds.jsonl')).catch(() => undefined);
      if ((journal?.size ?? 0) > 0) {
        found.push({ agentId, userId });
        continue;
      }
      const ahead = await run('git', ['rev-list', '--count', 'HEAD', '--not', '--remotes=origin'], {
        cwd: root,
      });
      if (ahead.ok && Number(ahead.stdout.trim()) > 0) found.push({ agentId, userId });
    }
  }
  return found;
}
