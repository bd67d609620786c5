// Devices without surprises (issue 32): the vault's `.gitattributes` names git's built-in `union`
// driver for day notes, so a clone where mem never ran (a phone with obsidian-git) merges a day both
// sides wrote with a plain `git pull` and no conflict markers; mem's next write there repairs the
// day to what mergeDay makes of the merge. A clone where mem runs gets mem's driver from its first
// write (not only from `mem sync`), found through PATH: a moved clone still merges entry by entry.
// Needs `npm run build` (the PATH driver runs the built CLI).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, openVault } from '../../src/index.js';
import { DRIVER_COMMAND, mergeEpisodeFiles } from '../../src/write/sync/merge-driver.js';
import { prepareVaultWrites } from '../../src/write/sync/repair-union.js';
import { git } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';
import { countLine, DAY, DAY_PATH, expectHealthy, memOnPath, twoClones } from './sync-helpers.js';

const run = promisify(execFile);

afterEach(cleanupVaults);

const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);

async function remember(root: string, lines: [string, string][]): Promise<void> {
  const vault = await openVault({ path: root, cache: false });
  for (const [hhmm, text] of lines) await vault.remember({ text, at: at(hhmm) });
  await vault.close();
}

/** The ids and times of a day's entries, in order. */
function entries(day: string): { ids: string[]; times: string[] } {
  const found = [...day.matchAll(/^- (\d\d:\d\d) .*\^(e\d+(?:-[0-9a-z]+)?)$/gm)];
  return { ids: found.map((m) => m[2]!), times: found.map((m) => m[1]!) };
}

function expectRepaired(day: string, count: number): void {
  const { ids, times } = entries(day);
  expect(ids.length).toBe(count);
  expect(new Set(ids).size).toBe(count);
  expect(times).toEqual([...times].sort());
  expect(day.match(/^---$/gm)?.length).toBe(2);
  expect(day.match(/^# /gm)?.length).toBe(1);
}

/** Commits `.gitattributes` on clone `a` (its first sync) and brings it to `b` with a plain pull. */
async function shareAttributes(a: string, b: string): Promise<void> {
  expect((await mem(['--vault', a, 'sync'])).code).toBe(0);
  expect(await readFile(join(a, '.gitattributes'), 'utf8')).toBe('episodes/daily/*-*-*.md merge=union\n');
  await git(b, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
}

describe('a day both devices wrote', () => {
  it('merges on a phone where mem never ran with a plain git pull, and mem repairs it once', async () => {
    const c = await twoClones();
    await shareAttributes(c.a, c.b);
    // The phone (b) has no driver configured: git's own union merge runs.
    expect(await git(c.b, 'config', '--get-regexp', '^merge\\.').catch(() => '')).toBe('');
    await remember(c.a, [
      ['09:00', 'laptop coffee'],
      ['15:00', 'laptop walk'],
    ]);
    await git(c.a, 'push', '-q', 'origin', 'main');
    // Written on the phone by hand, as `^e2`: the laptop's second entry is `^e2-<its tag>`, apart.
    const dayB = join(c.b, DAY_PATH);
    await writeFile(dayB, `${await readFile(dayB, 'utf8')}- 12:00 **Rain:** phone lunch ^e2\n`);
    await git(c.b, 'commit', '-q', '-am', 'obsidian-git: vault backup');
    await git(c.b, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    const pulled = await readFile(dayB, 'utf8');
    expect(pulled).not.toMatch(/^(<{7}|={7}|>{7})/m);
    for (const text of ['laptop coffee', 'laptop walk', 'phone lunch', 'good morning'])
      expect(pulled).toContain(text);
    // The union left the laptop's 15:00 entry before the phone's 12:00 one. The ids are apart: the
    // laptop's carry its device tag (`^e2-k7q2`), the phone's is the `^e2` typed by hand.
    const union = entries(pulled);
    expect(union.times).not.toEqual([...union.times].sort());
    expect(new Set(union.ids).size).toBe(4);
    // The phone pushes the union; the laptop's next sync takes it and repairs it there.
    await git(c.b, 'push', '-q', 'origin', 'main');
    expect((await mem(['--vault', c.a, 'sync'])).code).toBe(0);
    expectRepaired(await readFile(join(c.a, DAY_PATH), 'utf8'), 4);
    // Repaired with every id as the union had it: none moved to another entry.
    expect(entries(await readFile(join(c.a, DAY_PATH), 'utf8')).ids.sort()).toEqual(union.ids.sort());

    // mem's next command on the phone repairs the day, then writes.
    const said = await mem(['--vault', c.b, 'remember', 'phone dinner', '--at', `${DAY}T20:00:00Z`]);
    expect(said.code, said.stderr).toBe(0);
    const repaired = await readFile(dayB, 'utf8');
    expectRepaired(repaired, 5);
    const notes = await expectHealthy(c.b);
    for (const text of ['laptop coffee', 'laptop walk', 'phone lunch', 'phone dinner', 'good morning'])
      expect(countLine(notes, text)).toBe(1);
    expect(await git(c.b, 'log', '-1', '--format=%s', 'HEAD~1')).toMatch(/^mem: repair .* union merge/);
    // Again, even with the record of what was checked gone: nothing changes.
    await rm(join(c.b, '.mem', 'union-checked'));
    const head = await git(c.b, 'rev-parse', 'HEAD');
    expect(await prepareVaultWrites(c.b, await loadConfig(c.b))).toEqual([]);
    expect(await prepareVaultWrites(c.b, await loadConfig(c.b))).toEqual([]);
    expect(await readFile(dayB, 'utf8')).toBe(repaired);
    expect(await git(c.b, 'rev-parse', 'HEAD')).toBe(head);

    // Both repairs meet: the same day on both clones.
    await git(c.b, 'push', '-q', 'origin', 'main');
    expect((await mem(['--vault', c.a, 'sync'])).code).toBe(0);
    expect(await readFile(join(c.a, DAY_PATH), 'utf8')).toBe(repaired);
    await expectHealthy(c.a);
  });

  it('is merged by mem on PATH in a clone moved to another folder, set up by mem remember alone', async () => {
    const c = await twoClones();
    await shareAttributes(c.a, c.b);
    // The first write in a fresh clone sets the driver: no path of this clone or of this Node in it.
    expect((await mem(['--vault', c.b, 'remember', 'set up', '--at', `${DAY}T08:30:00Z`])).code).toBe(0);
    const driver = (await git(c.b, 'config', 'merge.union.driver')).trim();
    expect(driver).toBe(DRIVER_COMMAND);
    expect(driver).not.toContain(process.execPath);
    expect(driver).not.toContain('dist/cli');
    expect((await git(c.b, 'config', 'merge.memvault-episodes.driver')).trim()).toBe(DRIVER_COMMAND);

    await remember(c.a, [
      ['10:00', 'laptop one'],
      ['16:00', 'laptop two'],
    ]);
    await git(c.a, 'push', '-q', 'origin', 'main');
    const moved = join(await mkdtemp(join(tmpdir(), 'memvault-moved-')), 'phone');
    await rename(c.b, moved);
    await remember(moved, [['12:00', 'moved one']]);
    // `mem` on PATH is this build, through a shim that says it ran.
    const { ran, env } = await memOnPath();
    await run('git', ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main'], { cwd: moved, env });
    expect(await readFile(ran, 'utf8')).toMatch(/^merge-driver .* episodes\/daily\/2026-11-29\.md$/m);
    const day = await readFile(join(moved, DAY_PATH), 'utf8');
    expectRepaired(day, 5);
    // Merged entry by entry already: there is nothing to repair.
    expect(await prepareVaultWrites(moved, await loadConfig(moved))).toEqual([]);
    await expectHealthy(moved);
  });
});

describe('a repair beside a hand edit not yet committed', () => {
  it("commits the repair of the committed day only: the person's edit stays theirs, on disk and uncommitted", async () => {
    const c = await twoClones();
    await shareAttributes(c.a, c.b);
    await remember(c.a, [['09:00', 'laptop coffee']]);
    await git(c.a, 'push', '-q', 'origin', 'main');
    const dayB = join(c.b, DAY_PATH);
    await writeFile(dayB, `${await readFile(dayB, 'utf8')}- 12:00 **Rain:** phone lunch ^e2\n`);
    await git(c.b, 'commit', '-q', '-am', 'obsidian-git: vault backup');
    await git(c.b, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    // The person types on after the pull, and does not commit.
    await writeFile(dayB, `${await readFile(dayB, 'utf8')}\nA thought of my own, not committed.\n`);
    const said = await mem(['--vault', c.b, 'remember', 'another day', '--at', '2026-11-30T10:00:00Z']);
    expect(said.code, said.stderr).toBe(0);
    const repairCommit = (await git(c.b, 'log', '--format=%H %s'))
      .split('\n')
      .find((l) => / mem: repair /.test(l));
    expect(repairCommit).toBeDefined();
    const committed = await git(c.b, 'show', `${repairCommit!.slice(0, 40)}:${DAY_PATH}`);
    expect(committed).not.toContain('A thought of my own');
    expectRepaired(committed, 3);
    const onDisk = await readFile(dayB, 'utf8');
    expect(onDisk).toContain('A thought of my own, not committed.');
    expectRepaired(onDisk, 3);
    expect(await git(c.b, 'status', '--porcelain')).toBe(` M ${DAY_PATH}\n`);
  });
});

describe('the driver git calls for merge=union', () => {
  it('merges a day note entry by entry and any other file as union', async () => {
    const root = await makeVault({ 'notes/list.md': '' }, { config: { timezone: 'UTC' } });
    const day = (lines: string) => `---\ndate: ${DAY}\n---\n# ${DAY}\n\n- 08:00 **Rain:** one ^e1\n${lines}`;
    const files = async (b: string, o: string, t: string) => {
      await writeFile(join(root, 'B'), b);
      await writeFile(join(root, 'O'), o);
      await writeFile(join(root, 'T'), t);
    };
    await files('a\n', 'a\nours\n', 'a\ntheirs\n');
    await mergeEpisodeFiles('B', 'O', 'T', 'notes/list.md', root);
    expect(await readFile(join(root, 'O'), 'utf8')).toBe('a\nours\ntheirs\n');
    await files(day(''), day('- 12:00 **Rain:** ours ^e2\n'), day('- 10:00 **Rain:** theirs ^e2\n'));
    await mergeEpisodeFiles('B', 'O', 'T', DAY_PATH, root);
    expectRepaired(await readFile(join(root, 'O'), 'utf8'), 3);
  });
});
