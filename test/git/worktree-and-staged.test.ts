import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const DAY = 'episodes/daily/2026-11-30.md';
const COMMITTED = '# 2026-11-30\n\n- 09:00 **Rain:** morning ^e1\n';
const LINE = '- 12:00 lunch with Mei ^e2\n';

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

function remember(root: string) {
  return mem(['--vault', root, 'remember', 'lunch with Mei', '--at', '2026-11-30T12:00:00+08:00']);
}

describe('a vault in a linked worktree (git worktree add)', () => {
  it("commits on the worktree's branch, and leaves the main checkout and its branch alone", async () => {
    const main = await makeVault({ [DAY]: COMMITTED });
    await gitInit(main);
    const mainHead = (await git(main, 'rev-parse', 'HEAD')).trim();
    const tree = join(await mkdtemp(join(tmpdir(), 'mem-worktree-')), 'wt');
    await git(main, 'worktree', 'add', '-q', '-b', 'notes', tree);

    const out = await remember(tree);

    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(await git(tree, 'log', '-1', '--format=%s', 'notes')).toBe('mem: remember 2026-11-30#^e2\n');
    expect(await git(tree, 'show', `notes:${DAY}`)).toBe(`${COMMITTED}${LINE}`);
    expect(await git(tree, 'status', '--porcelain')).toBe('');
    // The main checkout: same commit, same file, nothing staged or changed.
    expect((await git(main, 'rev-parse', 'HEAD')).trim()).toBe(mainHead);
    expect(await readFile(join(main, DAY), 'utf8')).toBe(COMMITTED);
    expect(await git(main, 'status', '--porcelain')).toBe('');
  });
});

describe("a person's staged change in the vault", () => {
  it('to another note: mem neither commits it nor unstages it', async () => {
    const root = await makeVault({ [DAY]: COMMITTED, 'insights/tea.md': '# Tea\n' });
    await gitInit(root);
    await writeFile(join(root, 'insights/tea.md'), '# Tea\nOolong, staged by hand.\n');
    await git(root, 'add', 'insights/tea.md');

    expect((await remember(root)).code).toBe(0);

    expect(await git(root, 'show', 'HEAD:insights/tea.md')).toBe('# Tea\n');
    expect(await git(root, 'show', `HEAD:${DAY}`)).toBe(`${COMMITTED}${LINE}`);
    expect(await git(root, 'diff', '--cached', '--name-only')).toBe('insights/tea.md\n');
    expect(await git(root, 'show', ':insights/tea.md')).toBe('# Tea\nOolong, staged by hand.\n');
  });

  it('to the same daily note: mem commits only its line, and the edit stays staged', async () => {
    const root = await makeVault({ [DAY]: COMMITTED });
    await gitInit(root);
    const edited = COMMITTED.replace('morning', 'a quiet morning');
    await writeFile(join(root, DAY), edited);
    await git(root, 'add', DAY);

    expect((await remember(root)).code).toBe(0);

    expect(await readFile(join(root, DAY), 'utf8')).toBe(`${edited}${LINE}`);
    expect(await git(root, 'show', `HEAD:${DAY}`)).toBe(`${COMMITTED}${LINE}`);
    // Staged: the person's edit (on top of mem's line); nothing left unstaged.
    expect(await git(root, 'show', `:${DAY}`)).toBe(`${edited}${LINE}`);
    const staged = await git(root, 'diff', '--cached', '--', DAY);
    expect(staged).toContain('-- 09:00 **Rain:** morning ^e1\n+- 09:00 **Rain:** a quiet morning ^e1\n');
    expect(await git(root, 'diff', '--name-only')).toBe('');
  });
});
