import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

let alive: ChildProcess;
beforeAll(() => {
  alive = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
});
afterAll(() => {
  alive.kill();
});

const MINUTES = 60_000;

async function put(root: string, name: string, ageMs: number): Promise<void> {
  const abs = join(root, 'insights', name);
  await writeFile(abs, 'half a note');
  const when = new Date(Date.now() - ageMs);
  await utimes(abs, when, when);
}

describe('temp files left by killed writes', () => {
  it('are removed at the next open when their writer is gone or they are a day old; nothing else is', async () => {
    const root = await makeVault({ 'insights/a.md': '# A\n' });
    const dead = await deadPid();
    const live = alive.pid!;
    const removed = [
      `.a.md.${dead}.0123456789ab.tmp`,
      `.a.md.${dead}.0123456789ab.tmp.old`,
      `.new note.md.${dead}.abcdefabcdef.tmp`,
      `.a.md.${live}.0123456789ab.tmp`, // a day old: the pid may be another process now
    ];
    const kept = [
      `.a.md.${dead}.111111111111.tmp`, // fresh: maybe a writer on another host, mid-write
      `.a.md.${live}.222222222222.tmp`, // its writer still runs
      '.a.md.tmp', // not mem's names: a user's or another tool's
      `.a.md.${dead}.tmp`,
      `.a.md.${dead}.0123456789ab.tmp.bak`,
      `a.md.${dead}.0123456789ab.tmp`,
      `.a.md.${dead}.0123456789AB.tmp`,
    ];
    await put(root, removed[0]!, 2 * MINUTES);
    await put(root, removed[1]!, 2 * MINUTES);
    await put(root, removed[2]!, 2 * MINUTES);
    await put(root, removed[3]!, 25 * 60 * MINUTES);
    await put(root, kept[0]!, 0);
    await put(root, kept[1]!, 2 * MINUTES);
    for (const name of kept.slice(2)) await put(root, name, 25 * 60 * MINUTES);
    // A symlink with a temp name is not a temp file of mem's.
    await mkdir(join(root, 'elsewhere'));
    await writeFile(join(root, 'elsewhere', 'keep.txt'), 'keep');
    await symlink(
      join(root, 'elsewhere', 'keep.txt'),
      join(root, 'insights', `.b.md.${dead}.333333333333.tmp`),
    );
    kept.push(`.b.md.${dead}.333333333333.tmp`);

    const vault = await openVault({ path: root });
    await vault.close();
    const left = await readdir(join(root, 'insights'));
    expect(left.sort()).toEqual(['a.md', ...kept].sort());
  });

  it('a note set killed after its temp file is written leaves one, which the next start removes', async () => {
    const root = await makeVault(
      { 'insights/a.md': '# A\n' },
      { config: { timezone: 'UTC', git: { autoCommit: false } } },
    );
    const run = await memProcess(['--vault', root, 'note', 'set', 'insights/a', 'importance=0.9'], {
      env: { MEM_TEST_CRASH_AFTER: '1' },
    });
    expect(run.code).not.toBe(0);
    const temps = (await readdir(join(root, 'insights'))).filter((name) => name.endsWith('.tmp'));
    expect(temps).toHaveLength(1);
    // A minute on, as the next start would be.
    await put(root, temps[0]!, 2 * MINUTES);
    const vault = await openVault({ path: root });
    await vault.close();
    expect(await readdir(join(root, 'insights'))).toEqual(['a.md']);
  });
});
