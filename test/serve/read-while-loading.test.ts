import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VaultPool } from '../../src/serve/pool/vault-pool.js';
import { readVault } from '../../src/serve/routes.js';
import { WAIT } from '../helpers/wait.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

const ids = (agentId: string, userId: string) => ({ agentId, userId });
let cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * A user whose vault is in its remote, with one memory, and a second server whose clone of it waits
 * for a gate file: the command that makes (or finds) a user's repository runs before each clone.
 */
async function movedUser(): Promise<{ server: VaultPool; gate: string; said: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-read-loading-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const template = join(dir, 'git', '{agent}', '{user}.git');
  const first = new VaultPool({
    dir: join(dir, 'first'),
    remote: { template, create: '[ -d "$MEM_REMOTE_URL" ] || git init -q --bare "$MEM_REMOTE_URL"' },
  });
  const said = 'I keep bees on the roof';
  await first.use(ids('companion', 'mover'), true, (vault) =>
    vault?.addExchange({ user: said, assistant: 'Noted.' }),
  );
  await first.close();
  const gate = join(dir, 'gate');
  const server = new VaultPool({
    dir: join(dir, 'second'),
    remote: {
      template,
      create: `touch '${gate}.asked'; while [ ! -f '${gate}' ]; do sleep 0.05; done`,
    },
  });
  cleanup.push(() => server.close());
  // Opened before the close, so a failed test never leaves the close waiting at the gate.
  cleanup.push(() => writeFile(gate, ''));
  return { server, gate, said };
}

const search = (server: VaultPool, deadlineMs: number, whileLoading: boolean) =>
  readVault(
    { source: server, deadlineMs },
    ids('companion', 'mover'),
    (vault) => vault.recall('bees').hits.map((hit) => hit.text),
    () => [] as string[],
    false,
    { whileLoading },
  );

describe('a search of a vault the server is still loading', () => {
  it('answers nothing, marked partial, at the deadline; the load goes on and the next search finds the memory', async () => {
    const { server, gate, said } = await movedUser();
    const first = await search(server, 200, true);
    expect(first).toEqual({ value: [], partial: true });
    // The clone was asked for and waits at the gate: the answer did not wait for it.
    expect(await exists(`${gate}.asked`)).toBe(true);
    expect(await server.health()).toMatchObject({ vaults: 0 });
    await writeFile(gate, '');
    await vi.waitFor(async () => expect(await server.health()).toMatchObject({ vaults: 1 }), WAIT);
    const second = await search(server, 200, true);
    expect(second.partial).toBe(false);
    expect(second.value.join(' ')).toContain(said.slice(2));
  }, 60_000);

  it('waits for the load when the read may not answer early (compile: the persona comes first)', async () => {
    const { server, gate, said } = await movedUser();
    // A deadline of 0: a read that answered early would have answered before the clone was asked for.
    const waiting = search(server, 0, false);
    await vi.waitFor(async () => expect(await exists(`${gate}.asked`)).toBe(true), WAIT);
    await writeFile(gate, '');
    const result = await waiting;
    expect(result.partial).toBe(false);
    expect(result.value.join(' ')).toContain(said.slice(2));
  }, 60_000);
});
