// A sync's network steps run outside the write queue and lock: while the remote is slow to answer
// (here it answers only when the test says so), a live vault's adds and reads go on, and the sync
// then merges and pushes them. Before, `vault.sync()` held the queue from the fetch to the push, so
// a companion's adds waited seconds for a remote.
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { DAY, twoClones } from './sync-helpers.js';

afterEach(cleanupVaults);

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every upload-pack (ls-remote, fetch) of `clone` waits for `go` to exist, after saying it started. */
async function gateRemote(clone: string, gate: { started: string; go: string }): Promise<void> {
  const script = join(clone, '..', 'slow-upload-pack.sh');
  await writeFile(
    script,
    `#!/bin/sh\n: > '${gate.started}'\nwhile [ ! -e '${gate.go}' ]; do sleep 0.02; done\nexec git-upload-pack "$@"\n`,
    { mode: 0o755 },
  );
  await git(clone, 'config', 'remote.origin.uploadpack', script);
}

describe('a sync waiting on its remote', () => {
  it('holds neither adds nor reads, and sends them with its merge', async () => {
    const c = await twoClones();
    // The remote moved: b wrote and pushed, so a's sync has something to merge.
    const b = await openVault({ path: c.b, cache: false });
    await b.remember({ text: 'b wrote this while apart', at: new Date(`${DAY}T09:00:00Z`) });
    await b.sync();
    await b.close();

    const gate = { started: join(c.a, '..', 'fetch-started'), go: join(c.a, '..', 'fetch-go') };
    await gateRemote(c.a, gate);
    const a = await openVault({ path: c.a, cache: false });
    try {
      const syncing = a.sync();
      await until('the fetch to start', () => exists(gate.started));
      // The remote has not answered: the add and the read must finish all the same.
      const added = await Promise.race([
        a.remember({ text: 'a added during the fetch', at: new Date(`${DAY}T10:00:00Z`) }),
        // Not a wait for something to happen: the bound on a wrong answer (the add never returns).
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('the add waited for the remote')), 20_000),
        ),
      ]);
      expect(added.blockId).toMatch(/^e\d+/);
      expect(await exists(gate.go)).toBe(false);
      const hits = a.recall('added during the fetch', { k: 3 }).hits;
      expect(hits.map((h) => h.text).join('\n')).toContain('a added during the fetch');

      await writeFile(gate.go, '');
      const result = await syncing;
      expect(result.code).toBe('merged');
      const day = await git(c.a, 'show', `HEAD:episodes/daily/${DAY}.md`);
      expect(day).toContain('b wrote this while apart');
      // The add made during the fetch is in the vault; it goes out with this sync or the next.
      expect(
        a
          .note(`episodes/daily/${DAY}.md`)
          .sections.map((s) => s.text)
          .join('\n'),
      ).toContain('a added during the fetch');
    } finally {
      if (!(await exists(gate.go))) await writeFile(gate.go, '');
      await a.close();
    }
  });
});
