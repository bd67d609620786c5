import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { WAIT, WAIT_MS } from '../helpers/wait.js';

const FILES = {
  'profile/user.md': '# User\nLoves ramen.\n',
  'insights/trip.md': '# Trip\nA lantern festival in Taipei.\n',
};

afterEach(async () => {
  await cleanupVaults();
});

/** A vault whose cache was saved, then changed on disk behind it. */
async function changedBehindCache(): Promise<string> {
  const root = await makeVault(FILES);
  await (await openVault({ path: root })).close();
  await writeFile(join(root, 'insights/trip.md'), '# Trip\nA balloon ride over Cappadocia.\n');
  await writeFile(join(root, 'insights/kite.md'), '# Kite\nA balloon shaped kite.\n');
  await rm(join(root, 'profile/user.md'));
  return root;
}

describe("openVault({ scan: 'background' })", () => {
  it('answers from the cache at once, then from the files once the walk ends', async () => {
    const root = await changedBehindCache();
    const vault = await openVault({ path: root, scan: 'background' });
    // The walk has not read the files yet: the index is the cache's, and says so.
    expect(vault.scanPending).toBe(true);
    expect(vault.paths()).toEqual(['insights/trip.md', 'profile/user.md']);
    expect(vault.recall('balloon').hits).toEqual([]);

    expect(await vault.whenIdle(WAIT_MS)).toBe(true);
    expect(vault.scanPending).toBe(false);
    expect(vault.paths()).toEqual(['insights/kite.md', 'insights/trip.md']);
    expect(
      vault
        .recall('balloon')
        .hits.map((hit) => hit.path)
        .sort(),
    ).toEqual(['insights/kite.md', 'insights/trip.md']);
    expect(vault.lastRefresh).toMatchObject({ added: 1, changed: 1, removed: 1 });
    await vault.close();
  });

  it('without a cache reads every note before it resolves', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, scan: 'background' });
    expect(vault.scanPending).toBe(false);
    expect(vault.paths()).toEqual(['insights/trip.md', 'profile/user.md']);
    await vault.close();
  });

  it('a write queued during the walk lands after it, and the walk does not undo it', async () => {
    const root = await changedBehindCache();
    const vault = await openVault({ path: root, scan: 'background' });
    await vault.createNote({ path: 'insights/new', title: 'New' });
    expect(await vault.whenIdle(WAIT_MS)).toBe(true);
    expect(vault.paths()).toEqual(['insights/kite.md', 'insights/new.md', 'insights/trip.md']);
    await vault.close();
  });

  it('a server marks reads partial until the walk and the watcher start are done, then whole', async () => {
    const root = await changedBehindCache();
    const vault = await openVault({ path: root, scan: 'background' });
    // As `mem serve` does: the watcher starts, and the server listens without waiting for it.
    const watching = vault.watch();
    const server = await serveHttp({ source: singleVault(vault), port: 0, deadlineMs: 10_000 });
    try {
      expect(vault.scanPending).toBe(true);
      const ask = async () => {
        const response = await fetch(`${server.url}/recall`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'balloon' }),
        });
        return (await response.json()) as { partial?: boolean; hits: { path: string }[] };
      };
      // The read waits (up to the deadline) for the walk, so it sees the files, not the cache.
      const first = await ask();
      expect(first.partial).toBeUndefined();
      expect(first.hits.map((hit) => hit.path).sort()).toEqual(['insights/kite.md', 'insights/trip.md']);
      await watching;
      expect(await vault.whenIdle(WAIT_MS)).toBe(true);
      // A note written now is seen by the watcher.
      await writeFile(join(root, 'insights/late.md'), '# Late\nA balloon at dusk.\n');
      await expect
        .poll(async () => (await ask()).hits.map((hit) => hit.path), WAIT)
        .toContain('insights/late.md');
    } finally {
      await server.close();
    }
  });

  it('a server with a short deadline answers partial while a walk is pending, whole after', async () => {
    const root = await changedBehindCache();
    const vault = await openVault({ path: root, scan: 'background' });
    expect(await vault.whenIdle(WAIT_MS)).toBe(true);
    // Hold the vault's queue, so the catch-up walk the watcher starts cannot run yet.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The live index's (the one queue the Vault wires to every part: api/open-parts.ts).
    const { queue } = (
      vault as unknown as { live: { queue: { exclusive(fn: () => Promise<void>): Promise<void> } } }
    ).live;
    void queue.exclusive(() => held);
    const watching = vault.watch();
    const server = await serveHttp({ source: singleVault(vault), port: 0, deadlineMs: 1 });
    const ask = async () => {
      const response = await fetch(`${server.url}/recall`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'balloon' }),
      });
      return (await response.json()) as { partial?: boolean; hits: { path: string }[] };
    };
    try {
      const during = await ask();
      expect(during.partial).toBe(true);
      expect(during.hits.map((hit) => hit.path).sort()).toEqual(['insights/kite.md', 'insights/trip.md']);
      release();
      await watching;
      expect(await vault.whenIdle(WAIT_MS)).toBe(true);
      const after = await ask();
      expect(after.partial).toBeUndefined();
      expect(after.hits.map((hit) => hit.path).sort()).toEqual(['insights/kite.md', 'insights/trip.md']);
    } finally {
      release();
      await server.close();
    }
  });
});
