import { renameSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultMaxVaults, VaultPool } from '../../src/serve/pool/vault-pool.js';
import { vaultsWithWork } from '../../src/serve/pool/vault-remote.js';
import { parseVaultId } from '../../src/serve/pool/vault-source.js';
import { git } from '../helpers/git.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { WAIT } from '../helpers/wait.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

let pools: VaultPool[] = [];
let dirs: string[] = [];

async function pool(
  idleMs?: number,
  more: { maxVaults?: number; onNotice?: (message: string) => void } = {},
): Promise<{ dir: string; pool: VaultPool }> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
  dirs.push(dir);
  const made = new VaultPool({ dir, idleMs, ...more });
  pools.push(made);
  return { dir, pool: made };
}

afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  pools = [];
  dirs = [];
});

const ids = (agentId: string, userId: string) => ({ agentId, userId });

describe('parseVaultId', () => {
  it('accepts letters of any script, digits, "_" and "-", up to 64, and defaults to "default"', () => {
    expect(
      ['rain-01', 'a_b', 'X', '林雨', 'é', 'x'.repeat(64), undefined, ''].map((v) =>
        parseVaultId(v, 'user_id'),
      ),
    ).toEqual(['rain-01', 'a_b', 'X', '林雨', 'é', 'x'.repeat(64), 'default', 'default']);
  });

  it('refuses dots, separators, spaces, a leading dash, device names, long ids and non-strings', () => {
    for (const bad of [
      '.',
      '..',
      '.git',
      'a.b',
      'a/b',
      'a\\b',
      'a b',
      '-x',
      'nul',
      'LPT1',
      'x'.repeat(65),
      5,
    ]) {
      expect(() => parseVaultId(bad, 'user_id')).toThrow(
        `user_id must be 1 to 64 letters, digits, "_" or "-", not starting with "-" and not a reserved name, got ${JSON.stringify(bad)}`,
      );
    }
  });
});

describe('VaultPool', () => {
  it('gives a read of a vault that does not exist nothing, and creates no folder', async () => {
    const { dir, pool: p } = await pool();
    expect(await p.use(ids('rain', 'alice'), false, (vault) => vault)).toBe(undefined);
    expect(await exists(join(dir, 'rain'))).toBe(false);
    expect(p.loaded()).toEqual([]);
  });

  it('creates a vault from the templates, with git, on first write', async () => {
    const { dir, pool: p } = await pool();
    const root = await p.use(ids('rain', 'alice'), true, (vault) => vault?.root);
    expect(root).toBe(join(dir, 'rain', 'alice'));
    expect(await exists(join(dir, 'rain/alice/mem.config.json'))).toBe(true);
    expect(await exists(join(dir, 'rain/alice/.git'))).toBe(true);
    expect(p.loaded()).toEqual(['rain/alice']);
  });

  it('opens a vault once when two requests arrive together', async () => {
    const { pool: p } = await pool();
    const [a, b] = await Promise.all([
      p.use(ids('rain', 'alice'), true, (vault) => vault),
      p.use(ids('rain', 'alice'), true, (vault) => vault),
    ]);
    expect(a).toBeDefined();
    expect(a).toBe(b);
  });

  it("keeps each vault's memories to itself", async () => {
    const { pool: p } = await pool();
    const write = (user: string, text: string) =>
      p.use(ids('rain', user), true, (vault) => vault?.remember({ text }));
    await write('alice', 'alice plays the cello');
    await write('bob', 'bob plays the drums');
    const hits = (user: string, query: string) =>
      p.use(ids('rain', user), false, (vault) => vault?.recall(query).hits.map((h) => h.text) ?? []);
    expect(await hits('alice', 'cello')).toEqual(['alice plays the cello']);
    expect(await hits('alice', 'drums')).toEqual([]);
    expect(await hits('bob', 'drums')).toEqual(['bob plays the drums']);
    expect(await hits('bob', 'cello')).toEqual([]);
  });

  it('unloads an idle vault and loads it again, memories intact, on the next request', async () => {
    const { pool: p } = await pool(50);
    await p.use(ids('rain', 'alice'), true, (vault) => vault?.remember({ text: 'the kettle is blue' }));
    await vi.waitFor(() => expect(p.loaded()).toEqual([]), WAIT);
    const hits = await p.use(ids('rain', 'alice'), false, (vault) =>
      vault?.recall('kettle').hits.map((h) => h.text),
    );
    expect(hits).toEqual(['the kettle is blue']);
  });

  it('does not unload a vault while a request is using it', async () => {
    // The sweeper's interval and clock are fake, so the sweeps surely run while the vault is held.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const { pool: p } = await pool(20);
      await p.use(ids('rain', 'alice'), true, async () => {
        await vi.advanceTimersByTimeAsync(200);
        expect(p.loaded()).toEqual(['rain/alice']);
      });
      // The same sweeps unload it once the request is done.
      await vi.advanceTimersByTimeAsync(200);
      expect(p.loaded()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not unload a vault while it reflects in the background (the run would be abandoned)', async () => {
    const model = await startLlmStub(() => ({ hang: true }));
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const { dir, pool: p } = await pool(20);
      const root = join(dir, 'rain', 'alice');
      await mkdir(root, { recursive: true });
      await writeFile(
        join(root, 'mem.config.json'),
        JSON.stringify({ llm: { baseURL: model.baseURL }, reflect: { auto: { afterEntries: 1 } } }),
      );
      await p.use(ids('rain', 'alice'), false, (vault) => vault?.remember({ text: 'the kettle is blue' }));
      await vi.waitFor(() => expect(model.hanging()).toBe(1), WAIT);
      await vi.advanceTimersByTimeAsync(200);
      expect(p.loaded()).toEqual(['rain/alice']);
    } finally {
      vi.useRealTimers();
      await model.close();
    }
  });
});

describe('VaultPool with at most maxVaults loaded', () => {
  const remember = (p: VaultPool, user: string, text: string) =>
    p.use(ids('rain', user), true, (vault) => vault?.remember({ text }));
  const recall = (p: VaultPool, user: string, query: string) =>
    p.use(ids('rain', user), false, (vault) => vault?.recall(query).hits.map((h) => h.text));

  it('unloads the least recently used vault to load another, its memories intact when it comes back', async () => {
    const notices: string[] = [];
    const { pool: p } = await pool(undefined, { maxVaults: 2, onNotice: (m) => notices.push(m) });
    await remember(p, 'alice', 'alice plays the cello');
    await remember(p, 'bob', 'bob plays the drums');
    // Alice used again: bob is now the one used least recently.
    expect(await recall(p, 'alice', 'cello')).toEqual(['alice plays the cello']);
    await remember(p, 'carol', 'carol plays the oboe');
    expect(p.loaded()).toEqual(['rain/alice', 'rain/carol']);
    expect(notices).toContain('mem: unloaded least recently used vault rain/bob');
    expect(await recall(p, 'bob', 'drums')).toEqual(['bob plays the drums']);
    expect(p.loaded()).toEqual(['rain/bob', 'rain/carol']);
    expect(notices).toContain('mem: unloaded least recently used vault rain/alice');
    expect(await recall(p, 'alice', 'cello')).toEqual(['alice plays the cello']);
    expect(p.loaded()).toEqual(['rain/alice', 'rain/bob']);
  });

  it('never unloads a vault a request is using: it loads over the limit instead, and the next load makes up for it', async () => {
    const { pool: p } = await pool(undefined, { maxVaults: 1 });
    await remember(p, 'alice', 'alice plays the cello');
    await p.use(ids('rain', 'alice'), false, async (alice) => {
      // Two requests for bob together, while alice is in use: one load, nothing unloaded.
      const both = await Promise.all([recall(p, 'bob', 'drums'), remember(p, 'bob', 'bob plays the drums')]);
      expect(both[1]).toBeDefined();
      expect(p.loaded()).toEqual(['rain/alice', 'rain/bob']);
      expect(alice?.recall('cello').hits.map((h) => h.text)).toEqual(['alice plays the cello']);
    });
    // Over the limit and nothing in use: the next load unloads as many as it takes, the one used
    // least recently first. A read of a vault not there loads nothing.
    expect(await recall(p, 'carol', 'oboe')).toBe(undefined);
    expect(p.loaded()).toEqual(['rain/alice', 'rain/bob']);
    await remember(p, 'carol', 'carol plays the oboe');
    expect(p.loaded()).toEqual(['rain/carol']);
    expect(await recall(p, 'bob', 'drums')).toEqual(['bob plays the drums']);
    expect(await recall(p, 'alice', 'cello')).toEqual(['alice plays the cello']);
    expect(p.loaded()).toEqual(['rain/alice']);
  });

  it('defaults to 8 MiB a vault in half the memory the process may use, and at least 16', () => {
    const GiB = 1024 ** 3;
    expect(defaultMaxVaults(8 * GiB, 0)).toBe(512);
    expect(defaultMaxVaults(8 * GiB, 1 * GiB)).toBe(64);
    expect(defaultMaxVaults(8 * GiB, 16 * GiB)).toBe(512);
    expect(defaultMaxVaults(64 * 1024 ** 2, 0)).toBe(16);
    expect(new VaultPool({ dir: tmpdir() }).limit).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('VaultPool with remotes', () => {
  it("gives a new vault the template's sync settings on top of the remote's: ackAfterPush keeps afterCommit", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
    dirs.push(dir);
    await mkdir(join(dir, 'template'), { recursive: true });
    await writeFile(
      join(dir, 'template', 'mem.config.json'),
      JSON.stringify({ sync: { ackAfterPush: true } }),
    );
    const made = new VaultPool({
      dir: join(dir, 'vaults'),
      template: join(dir, 'template'),
      remote: {
        template: join(dir, 'git', '{agent}', '{user}.git'),
        create: 'git init -q --bare "$MEM_REMOTE_URL"',
      },
    });
    pools.push(made);
    const sync = await made.use(ids('companion', 'acked'), true, (vault) => vault?.config.sync);
    expect(sync).toEqual({
      remote: 'origin',
      afterCommit: true,
      afterCommitGapSeconds: 5,
      intervalSeconds: 60,
      ackAfterPush: true,
      ackTimeoutSeconds: 30,
    });
  }, 60_000);

  it("answers health while a vault is still loading (its remote slow to make): the router's check never waits on it", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
    dirs.push(dir);
    const gate = join(dir, 'gate');
    // The command that makes a user's repository waits for the gate: the vault's load waits with it.
    const made = new VaultPool({
      dir: join(dir, 'vaults'),
      remote: {
        template: join(dir, 'git', '{agent}', '{user}.git'),
        create: `touch '${gate}.asked'; while [ ! -f '${gate}' ]; do sleep 0.05; done; git init -q --bare "$MEM_REMOTE_URL"`,
      },
    });
    pools.push(made);
    const first = made.use(ids('companion', 'slow'), true, (vault) => vault?.root);
    await vi.waitFor(async () => expect(await exists(`${gate}.asked`)).toBe(true), WAIT);
    try {
      const answered = await Promise.race([
        made.health(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('health waited for the load')), 5000)),
      ]);
      expect(answered).toMatchObject({ vaults: 0 });
    } finally {
      await writeFile(gate, '');
    }
    expect(await first).toBe(join(dir, 'vaults', 'companion', 'slow'));
    expect(await made.health()).toMatchObject({ vaults: 1 });
  }, 60_000);

  it("answers a read of a new user's empty remote with nothing, cloning nothing; a remote it cannot read is an error", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
    dirs.push(dir);
    const made = new VaultPool({
      dir: join(dir, 'vaults'),
      remote: {
        template: join(dir, 'git', '{agent}', '{user}.git'),
        create: 'git init -q --bare "$MEM_REMOTE_URL"',
      },
    });
    pools.push(made);
    expect(await made.use(ids('companion', 'new'), false, (vault) => vault)).toBeUndefined();
    // The repository was made (the user's next add pushes to it); no working copy was cloned here.
    expect(await exists(join(dir, 'git', 'companion', 'new.git', 'HEAD'))).toBe(true);
    expect(await exists(join(dir, 'vaults', 'companion', 'new'))).toBe(false);
    const without = new VaultPool({
      dir: join(dir, 'other'),
      remote: { template: join(dir, 'none', '{user}.git') },
    });
    pools.push(without);
    await expect(without.use(ids('companion', 'new'), false, (vault) => vault)).rejects.toThrow(
      /cannot read/,
    );
  }, 60_000);

  it('closes with a recovery running: the recovery is finished and pushed, every vault it loaded is closed, and no request loads one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
    dirs.push(dir);
    const remote = {
      template: join(dir, 'git', '{agent}', '{user}.git'),
      create: 'git init -q --bare "$MEM_REMOTE_URL"',
    };
    const users = ['u0', 'u1', 'u2'];
    const first = new VaultPool({ dir: join(dir, 'vaults'), remote });
    for (const user of users)
      await first.use(ids('companion', user), true, (vault) =>
        vault?.addExchange({ user: `the kiwi of ${user}`, assistant: 'Noted.' }),
      );
    await first.close();
    // A commit its remote lacks in each: work a killed server left, which recover() loads.
    for (const user of users)
      await git(join(dir, 'vaults', 'companion', user), 'commit', '-q', '--allow-empty', '-m', 'left');
    const second = new VaultPool({ dir: join(dir, 'vaults'), remote });
    pools.push(second);
    const recovering = second.recover();
    await second.close();
    expect(await recovering).toBe(3);
    expect(second.loaded()).toEqual([]);
    expect(await vaultsWithWork(join(dir, 'vaults'))).toEqual([]);
    await expect(second.use(ids('companion', 'u0'), false, (vault) => vault)).rejects.toThrow(/stopping/);
  }, 60_000);

  it('serves a vault it just cloned without a catch-up sync, and catches up a copy it held before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memvault-pool-'));
    dirs.push(dir);
    const remote = {
      template: join(dir, 'git', '{agent}', '{user}.git'),
      create: 'git init -q --bare "$MEM_REMOTE_URL"',
    };
    const notices: string[] = [];
    const bare = join(dir, 'git', 'companion', 'mover.git');
    // The remote goes unreadable the moment b has cloned it: a catch-up sync would fail, and say so.
    const onNotice = (line: string) => {
      notices.push(line);
      if (/cloned vault companion\/mover/.test(line)) renameSync(bare, `${bare}.away`);
    };
    const a = new VaultPool({ dir: join(dir, 'a'), remote });
    const b = new VaultPool({ dir: join(dir, 'b'), remote, onNotice });
    pools.push(a, b);
    const said = 'I keep bees on the roof';
    await a.use(ids('companion', 'mover'), true, (vault) =>
      vault?.addExchange({ user: said, assistant: 'Noted.' }),
    );
    await a.moves!.release(ids('companion', 'mover'));
    const found = await b.use(ids('companion', 'mover'), false, (vault) => vault?.recall('bees').hits.length);
    expect(found).toBeGreaterThan(0);
    expect(notices.some((line) => /cloned vault companion\/mover/.test(line))).toBe(true);
    expect(notices.filter((line) => /serves without/.test(line))).toEqual([]);
    renameSync(`${bare}.away`, bare);
    // b takes an add and releases; a accepts the vault back: its old copy catches up before serving.
    await b.use(ids('companion', 'mover'), true, (vault) =>
      vault?.addExchange({ user: 'The hive swarmed today', assistant: 'Oh!' }),
    );
    await b.moves!.release(ids('companion', 'mover'));
    a.moves!.accept(ids('companion', 'mover'));
    const back = await a.use(
      ids('companion', 'mover'),
      false,
      (vault) => vault?.recall('swarmed').hits.length,
    );
    expect(back).toBeGreaterThan(0);
  }, 120_000);
});
