// A sync with nothing to do (the remote's branch is HEAD) is told by one `git ls-remote`: it takes
// neither the vault's lock nor its write queue (`hold`), so a server's every-minute syncs of idle
// vaults cost no merge step; anything to send, to take in or to finish still runs the full sync.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/config.js';
import { syncVault } from '../../src/write/sync/sync-vault.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { DAY_PATH, twoClones } from './sync-helpers.js';

afterAll(cleanupVaults);

/** Runs a sync of `root` and says whether it took the merge step (`hold`). */
async function sync(root: string) {
  let held = 0;
  const result = await syncVault(root, await loadConfig(root), {
    hold: (step) => {
      held++;
      return step();
    },
  });
  return { result, held };
}

const revParse = async (root: string, ref: string) => (await git(root, 'rev-parse', ref)).trim();

describe('sync with nothing to do', () => {
  it('skips the merge step when the remote is HEAD, and keeps the remote-tracking ref at HEAD', async () => {
    const c = await twoClones();
    // A clone never synced is not set up yet: its first sync writes the merge driver's attributes
    // and pushes their commit, though the remote was HEAD.
    const first = await sync(c.a);
    expect(first.held).toBe(1);
    expect(await git(c.a, 'show', 'HEAD:.gitattributes')).toMatch(/merge=union/);
    // A clone is its remote's branch; a tracking ref gone stale (here: gone) is set to HEAD.
    await git(c.a, 'update-ref', '-d', 'refs/remotes/origin/main');
    const idle = await sync(c.a);
    expect(idle.held).toBe(0);
    expect(idle.result).toMatchObject({ code: 'up-to-date', head: await revParse(c.a, 'HEAD') });
    expect(await revParse(c.a, 'refs/remotes/origin/main')).toBe(await revParse(c.a, 'HEAD'));
  }, 60_000);

  it('runs the full sync when there is a commit to push or one to take in', async () => {
    const c = await twoClones();
    await writeFile(
      join(c.a, DAY_PATH),
      `${await git(c.a, 'show', `HEAD:${DAY_PATH}`)}- 09:00 **Rain:** tea ^e2\n`,
    );
    await git(c.a, 'commit', '-q', '-am', 'an add');
    const pushed = await sync(c.a);
    expect(pushed).toMatchObject({ held: 1, result: { code: 'pushed' } });
    // b is behind: the remote moved, so b fetches and takes a's commit in.
    const taken = await sync(c.b);
    expect(taken.held).toBe(1);
    await git(c.b, 'merge-base', '--is-ancestor', await revParse(c.a, 'HEAD'), 'HEAD');
  }, 60_000);

  it("runs the full sync when a killed sync's record waits to be finished, and when a merge is in progress", async () => {
    const c = await twoClones();
    await sync(c.a);
    const head = await revParse(c.a, 'HEAD');
    await mkdir(join(c.a, '.mem'), { recursive: true });
    await writeFile(
      join(c.a, '.mem', 'pending-sync.json'),
      `${JSON.stringify({ old: head, target: head, paths: [] })}\n`,
    );
    expect(await sync(c.a)).toMatchObject({ held: 1, result: { resumed: true } });
    await writeFile(join(c.a, '.git', 'MERGE_HEAD'), `${head}\n`);
    await expect(sync(c.a)).rejects.toThrow(/a merge is in progress/);
  }, 60_000);
});
