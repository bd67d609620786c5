// `sync.ackAfterPush`: an add is answered only once a push holds it, so a machine lost with its
// disk loses nothing it acknowledged. Real git, a bare remote on disk, `mem serve` over HTTP on
// 127.0.0.1 (needs `npm run build`) and the library's memory_remember path.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { countLine, twoClones } from './sync-helpers.js';

const DAY_PATH = 'episodes/daily/2026-11-30.md';
const AT = '2026-11-30T10:00:00Z';

const children: Array<Awaited<ReturnType<typeof startServe>>> = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await cleanupVaults();
});

/** The remote's day note as its branch holds it now ('' when it has none). */
const remoteDay = (bare: string) => git(bare, '--git-dir', bare, 'show', `main:${DAY_PATH}`).catch(() => '');

/** A remote that refuses every push (its pre-receive hook fails); fetches still work. */
async function refusePushes(bare: string): Promise<() => Promise<void>> {
  const hook = join(bare, 'hooks', 'pre-receive');
  await writeFile(hook, '#!/bin/sh\necho "refused by the test" >&2\nexit 1\n', { mode: 0o755 });
  return () => rm(hook);
}

async function add(url: string, text: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const reply = await fetch(`${url}/memory/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_text: text, commit: 'user', at: AT }),
  });
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
}

describe('sync.ackAfterPush', () => {
  it('answers /memory/add only once the remote branch holds the add, concurrent adds included', async () => {
    const c = await twoClones(undefined, { sync: { ackAfterPush: true } });
    const server = await startServe(c.a);
    children.push(server);
    // Rounds of concurrent adds: each answer is checked against the remote as soon as it comes.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const text = `pushed before answered r${round} n${i}`;
          const reply = await add(server.url, text);
          expect(reply.status, JSON.stringify(reply.body)).toBe(200);
          expect(reply.body).toMatchObject({ status: 'written', kept: 1, pushed: true });
          expect(await remoteDay(c.bare)).toContain(text);
        }),
      );
    }
    const day = await remoteDay(c.bare);
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 4; i++) expect(countLine(new Map([[DAY_PATH, day]]), `r${round} n${i}`)).toBe(1);
  });

  it('a remote that refuses the push: the add answers that it is kept here, not pushed, and goes out later once', async () => {
    const c = await twoClones(undefined, { sync: { ackAfterPush: true } });
    const allow = await refusePushes(c.bare);
    const server = await startServe(c.a);
    children.push(server);
    const refused = await add(server.url, 'kept here while the remote refuses');
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'GIT', status: 'written', kept: 1, pushed: false });
    expect(refused.body['links']).toEqual([expect.stringMatching(/^\[\[2026-11-30#\^e\d+(-\w+)?\]\]$/)]);
    expect(refused.body['error']).toMatch(
      /written and committed here .* not pushed: .*sending it again would keep it twice/,
    );
    // Kept and committed here, not on the remote.
    expect(await remoteDay(c.bare)).not.toContain('kept here while the remote refuses');
    expect(await git(c.a, 'show', `HEAD:${DAY_PATH}`)).toContain('kept here while the remote refuses');

    await allow();
    const next = await add(server.url, 'after the remote takes pushes again');
    expect(next).toMatchObject({ status: 200, body: { pushed: true } });
    const day = new Map([[DAY_PATH, await remoteDay(c.bare)]]);
    // The refused add went out with the next push, once: nothing lost, nothing written twice.
    expect(countLine(day, 'kept here while the remote refuses')).toBe(1);
    expect(countLine(day, 'after the remote takes pushes again')).toBe(1);
  });

  it("memory_remember's path (Vault.remember) waits for the push too, and says when it did not happen", async () => {
    const c = await twoClones(undefined, { sync: { ackAfterPush: true } });
    const vault = await openVault({ path: c.a, cache: false });
    try {
      const result = await vault.remember({ text: 'remembered and pushed', at: new Date(AT) });
      expect(result.committed).toBe(true);
      expect(await remoteDay(c.bare)).toContain('remembered and pushed');
      await refusePushes(c.bare);
      await expect(
        vault.remember({ text: 'remembered, push refused', at: new Date(AT) }),
      ).rejects.toMatchObject({
        code: 'GIT',
        notPushed: { stage: 'committed', kept: 1 },
      });
      expect(await remoteDay(c.bare)).not.toContain('remembered, push refused');
    } finally {
      await vault.close();
    }
  });
});
