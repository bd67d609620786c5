// `mem serve` with `sync.afterCommit`: an add is committed by the group commit, then synced to the
// remote off the request path, and `/memory/health` shows the sync's state. Needs `npm run build`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault } from '../../src/index.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';
import { countLine, expectHealthy, twoClones } from './sync-helpers.js';

const children: Array<ReturnType<typeof startServe> extends Promise<infer T> ? T : never> = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await cleanupVaults();
});

async function json(url: string, body?: unknown): Promise<Record<string, unknown>> {
  const reply = await fetch(
    url,
    body === undefined
      ? {}
      : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
  );
  return (await reply.json()) as Record<string, unknown>;
}

describe('mem serve with sync.afterCommit', () => {
  it('pushes each group commit to the remote and reports the sync in /memory/health', async () => {
    const c = await twoClones(undefined, { sync: { afterCommit: true } });
    const server = await startServe(c.a);
    children.push(server);
    expect(
      await json(`${server.url}/memory/add`, {
        user_text: 'Synced from the server',
        at: '2026-11-30T10:00:00Z',
      }),
    ).toMatchObject({ status: 'written' });
    await vi.waitFor(async () => {
      const health = await json(`${server.url}/memory/health`);
      expect(health['sync']).toMatchObject({ vaults: 1, ahead: 0, behind: 0, lastSync: expect.any(String) });
      expect(await git(c.bare, 'log', '--format=%s', '-3')).toMatch(/mem: remember 1 exchange/);
    }, WAIT);
    const vb = await openVault({ path: c.b, cache: false });
    await vb.sync();
    await vb.close();
    const notes = await expectHealthy(c.b);
    expect(countLine(notes, 'Synced from the server')).toBe(1);
  });
});
