// A plain `git pull` (obsidian-git, the command line) merges a day note entry by entry through the
// merge driver that `mem sync` (and `mem init`) sets up: no conflict, every entry once, ids unique.
// Needs `npm run build`.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { initVault, openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';
import { countLine, DAY, DAY_PATH, expectHealthy, memOnPath, twoClones } from './sync-helpers.js';

const run = promisify(execFile);

afterEach(cleanupVaults);

const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);

describe('the merge driver', () => {
  it('lets git pull merge one day written on two clones', async () => {
    const c = await twoClones();
    // First use of mem sync sets the driver up on each clone (and commits .gitattributes once).
    for (const root of [c.a, c.b, c.a]) expect((await memProcess(['--vault', root, 'sync'])).code).toBe(0);
    expect(await readFile(join(c.a, '.gitattributes'), 'utf8')).toBe('episodes/daily/*-*-*.md merge=union\n');
    expect(await git(c.b, 'config', 'merge.union.driver')).toMatch(/mem merge-driver %O %A %B %P;/);
    for (const [root, who] of [
      [c.a, 'a'],
      [c.b, 'b'],
    ] as const) {
      const vault = await openVault({ path: root, cache: false });
      for (let i = 0; i < 4; i++) await vault.remember({ text: `${who} pulled ${i}`, at: at(`14:0${i}`) });
      await vault.close();
    }
    // git finds the driver through PATH, where an install puts `mem`.
    const { env } = await memOnPath();
    const pull = (cwd: string) =>
      run('git', ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main'], { cwd, env });
    await git(c.a, 'push', '-q', 'origin', 'main');
    await pull(c.b);
    await git(c.b, 'push', '-q', 'origin', 'main');
    await pull(c.a);
    const [na, nb] = [await expectHealthy(c.a), await expectHealthy(c.b)];
    expect(nb).toEqual(na);
    const day = na.get(DAY_PATH)!;
    for (let i = 0; i < 4; i++) {
      expect(countLine(na, `a pulled ${i}`)).toBe(1);
      expect(countLine(na, `b pulled ${i}`)).toBe(1);
    }
    const ids = [...day.matchAll(/\^(e\d+(?:-[0-9a-z]+)?)$/gm)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(9);
  });

  it('is set up by mem init', async () => {
    const root = await makeVault();
    const { created } = await initVault(join(root, 'v'));
    expect(created).toContain('.gitattributes');
    expect(await git(join(root, 'v'), 'config', 'merge.union.driver')).toMatch(/merge-driver/);
    expect(await git(join(root, 'v'), 'ls-files', '.gitattributes')).toBe('.gitattributes\n');
  });
});
