import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { makeVault } from './make-vault.js';

const run = promisify(execFile);

/** A fixed identity, so tests commit the same way on any machine (CI has no git user). */
export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

/** Runs real git in `root` and returns its stdout. */
export async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: root, env: GIT_ENV })).stdout;
}

/** Makes `root` a repository whose first commit holds everything in it. */
export async function gitInit(root: string): Promise<void> {
  await git(root, 'init', '-q');
  await git(root, 'add', '-A');
  await git(root, 'commit', '-q', '-m', 'init');
}

/** A temp vault holding `files` (see makeVault), already a repository with one commit "init". */
export async function gitVault(
  files: Record<string, string> = {},
  options: Parameters<typeof makeVault>[1] = {},
): Promise<string> {
  const root = await makeVault(files, options);
  await gitInit(root);
  return root;
}
