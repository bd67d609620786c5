import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';

// Whether the repository's git hooks run on mem's commits (`git.runHooks`): real hooks that leave
// a marker file. Every hook git could start during mem's commit is installed, the ones mem's
// plumbing would trigger by itself (reference-transaction, post-index-change) too.

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'reference-transaction',
  'post-index-change',
];
const AT = '2026-11-30T09:00:00+08:00';

afterEach(cleanupVaults);

async function vaultWithHooks(runHooks: boolean | undefined, failing: string[] = []) {
  const root = await gitVault(
    { 'profile/user.md': '# User\n' },
    { config: { timezone: 'Asia/Shanghai', ...(runHooks === undefined ? {} : { git: { runHooks } }) } },
  );
  const markers = await mkdtemp(join(tmpdir(), 'mem-hooks-'));
  const marker = join(markers, 'ran');
  for (const hook of HOOKS) {
    const path = join(root, '.git', 'hooks', hook);
    const body =
      hook === 'commit-msg'
        ? `echo "Hooked: yes" >> "$1"\n`
        : failing.includes(hook)
          ? 'echo "lint failed" >&2\nexit 1\n'
          : '';
    await writeFile(path, `#!/bin/sh\necho ${hook} >> '${marker}'\n${body}`);
    await chmod(path, 0o755);
  }
  const ran = async () =>
    (await readFile(marker, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .filter((name, i, all) => all.indexOf(name) === i);
  return { root, ran, marker };
}

describe('git hooks on mem commits', () => {
  it('by default no hook runs, not even the ones plumbing starts, and the commit is made', async () => {
    for (const setting of [undefined, false]) {
      const { root, ran } = await vaultWithHooks(setting);
      const vault = await openVault({ path: root });
      const result = await vault.remember({ text: 'hooks stay quiet', at: AT });
      await vault.close();
      expect(result.committed).toBe(true);
      expect(await ran()).toEqual([]);
      expect(await git(root, 'log', '-1', '--format=%s')).toMatch(/^mem: /);
    }
  });

  it('with git.runHooks, pre-commit, commit-msg and post-commit run as git commit runs them', async () => {
    const { root, ran } = await vaultWithHooks(true);
    const vault = await openVault({ path: root });
    const result = await vault.remember({ text: 'hooks run', at: AT });
    await vault.close();
    expect(result.committed).toBe(true);
    expect(await ran()).toEqual(['pre-commit', 'commit-msg', 'post-commit']);
    // commit-msg edited the message, and the commit carries the edit.
    expect(await git(root, 'log', '-1', '--format=%B')).toContain('Hooked: yes');
  });

  it('with git.runHooks, a failing pre-commit stops the commit and says why; the entry is still written', async () => {
    const { root, ran } = await vaultWithHooks(true, ['pre-commit']);
    const head = (await git(root, 'rev-parse', 'HEAD')).trim();
    const vault = await openVault({ path: root });
    const result = await vault.remember({ text: 'blocked by a hook', at: AT });
    await vault.close();
    expect(result.committed).toBe(false);
    expect(result.reason).toMatch(
      /^the pre-commit hook failed \(git\.runHooks is on\), so mem did not commit: .*lint failed/s,
    );
    expect(await ran()).toEqual(['pre-commit']);
    expect((await git(root, 'rev-parse', 'HEAD')).trim()).toBe(head);
    expect(await readFile(join(root, result.path), 'utf8')).toContain('blocked by a hook');
  });

  it('with git.runHooks, the commit of mem undo runs them too; without it, none', async () => {
    for (const setting of [true, false]) {
      const { root, ran, marker } = await vaultWithHooks(setting);
      const vault = await openVault({ path: root });
      await vault.remember({ text: 'to be undone', at: AT });
      await rm(marker, { force: true });
      const undone = await vault.undo();
      await vault.close();
      expect(undone.committed).toBe(true);
      expect(await git(root, 'log', '-1', '--format=%s')).toMatch(/^mem: undo /);
      expect(await ran()).toEqual(setting ? ['pre-commit', 'commit-msg', 'post-commit'] : []);
    }
  });
});
