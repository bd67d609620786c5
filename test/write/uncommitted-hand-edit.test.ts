import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const DAY = 'episodes/daily/2026-11-30.md';
const COMMITTED = '# 2026-11-30\n\n- 09:00 **Rain:** morning ^e1\n';

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe("remember commits only mem's lines of a daily note", () => {
  it('leaves an uncommitted hand edit of the same note unstaged', async () => {
    const root = await makeVault({ [DAY]: COMMITTED });
    await gitInit(root);
    const edited = COMMITTED.replace('morning', 'a quiet morning');
    await writeFile(join(root, DAY), edited);

    const out = await mem([
      '--vault',
      root,
      'remember',
      'lunch with Mei',
      '--at',
      '2026-11-30T12:00:00+08:00',
    ]);

    expect(out.code).toBe(0);
    const line = '- 12:00 lunch with Mei ^e2\n';
    expect(await readFile(join(root, DAY), 'utf8')).toBe(`${edited}${line}`);
    expect(await git(root, 'show', `HEAD:${DAY}`)).toBe(`${COMMITTED}${line}`);
    expect(await git(root, 'diff', '--cached', '--name-only')).toBe('');
    const unstaged = await git(root, 'diff', '--', DAY);
    expect(unstaged).toContain('-- 09:00 **Rain:** morning ^e1\n+- 09:00 **Rain:** a quiet morning ^e1\n');
  });
});
