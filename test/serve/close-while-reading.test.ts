// A read in flight when its index is closed or replaced answers as the open index would: each way
// an index closes (the vault closed, a server's source closed, a pool closing, the text index
// rebuilt from the notes after a damaged segment) is tried while a recall waits mid-way for its
// query's vector from a stub endpoint on 127.0.0.1, and the recall's answer is compared with the
// one the open index gave.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemError, openVault, type Vault } from '../../src/index.js';
import { BLOCK } from '../../src/indexing/segment-source.js';
import { serveHttp } from '../../src/serve/http.js';
import { VaultPool } from '../../src/serve/pool/vault-pool.js';
import { singleVault, type VaultSource } from '../../src/serve/pool/vault-source.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { seeded } from '../helpers/seeded.js';
import { WAIT } from '../helpers/wait.js';

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
const dirs: string[] = [];

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterAll(async () => {
  await stub.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Sixty facts, with terms and docs segments of several blocks each, picked by a seed. */
function files(seed: number): Record<string, string> {
  const next = seeded(seed);
  const out: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    const n = Math.floor(next() * 1000);
    out[`insights/facts/fact-${i}.md`] =
      `# Fact ${i}\n\nWord${n}alpha and word${i}beta met at harbor ${n % 7}; 第${i}个灯塔 stands by quay${i}.\n`;
  }
  return out;
}

async function writeVault(root: string, seed: number): Promise<void> {
  const config = {
    timezone: 'UTC',
    git: { autoCommit: false },
    embeddings: { enabled: true, baseURL: stub.baseURL, model: 'stub-1' },
  };
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'mem.config.json'), JSON.stringify(config));
  for (const [path, text] of Object.entries(files(seed))) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** Flips a byte in every block of the vault's docs and terms segments, in place. */
async function damageSegments(root: string): Promise<number> {
  let blocks = 0;
  for (const entry of await readdir(join(root, '.mem', 'index'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/^(docs|terms)-\d+\.bin$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = readFileSync(path);
    const writer = openSync(path, 'r+');
    for (let at = 7; at < bytes.length; at += BLOCK, blocks++)
      writeSync(writer, Buffer.from([(bytes[at] as number) ^ 0xff]), 0, 1, at);
    closeSync(writer);
  }
  return blocks;
}

type Hits = Array<[string, number]>;

interface Setup {
  /** Recalls `query` over HTTP or the library, as the open index answers */
  recall(query: string): Promise<Hits>;
  /** What the open index answers, when it must not be asked by `recall` first */
  reference?(query: string): Promise<Hits>;
  /** Closes or replaces the index while a read waits */
  disturb(): Promise<void>;
  /** Ends what is left open */
  end(): Promise<void>;
}

async function post(url: string, body: object): Promise<Hits> {
  const response = await fetch(`${url}/recall`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { hits?: Array<{ id: string; score: number }>; error?: string };
  if (response.status !== 200) throw new Error(`${response.status}: ${json.error}`);
  return (json.hits ?? []).map((hit) => [hit.id, hit.score]);
}

const hitsOf = (result: { hits: Array<{ id: string; score: number }> }): Hits =>
  result.hits.map((hit) => [hit.id, hit.score]);

/** A vault opened from its cache (saved by a first open), its sections embedded. */
async function cachedVault(root: string, seed: number, onNotice?: (message: string) => void): Promise<Vault> {
  await writeVault(root, seed);
  const first = await openVault({ path: root });
  await first.embed();
  await first.close();
  return openVault({ path: root, ...(onNotice ? { onNotice } : {}) });
}

const WAYS: Record<string, (root: string, seed: number) => Promise<Setup>> = {
  'Vault.close() during recallAsync': async (root, seed) => {
    const vault = await cachedVault(root, seed);
    return {
      recall: async (query) => hitsOf(await vault.recallAsync(query, { k: 8 })),
      disturb: () => vault.close(),
      end: () => vault.close(),
    };
  },
  "a server's vault closed (as `mem serve` stops) during /recall": async (root, seed) => {
    const vault = await cachedVault(root, seed);
    const source = singleVault(vault);
    const server = await serveHttp({ source, port: 0 });
    return {
      recall: (query) => post(server.url, { query, k: 8 }),
      disturb: () => source.close(),
      end: () => server.close(),
    };
  },
  'a --vaults pool closing (every vault unloaded) during /recall': async (root, seed) => {
    const dir = dirname(dirname(root));
    await cachedVault(root, seed).then((vault) => vault.close());
    const pool = new VaultPool({ dir });
    const server = await serveHttp({ source: pool as VaultSource, port: 0 });
    const [agent, user] = root.slice(dir.length + 1).split('/') as [string, string];
    return {
      recall: (query) => post(server.url, { query, k: 8, agent_id: agent, user_id: user }),
      disturb: () => pool.close(),
      end: () => server.close(),
    };
  },
  'the text index rebuilt from the notes (a damaged segment) during recallAsync': async (root, seed) => {
    const notices: string[] = [];
    const vault = await cachedVault(root, seed, (message) => notices.push(message));
    return {
      // Another open of the cache answers first, so this one has read (and kept) few blocks when damaged.
      reference: async (query) => {
        const other = await openVault({ path: root });
        try {
          return hitsOf(await other.recallAsync(query, { k: 8 }));
        } finally {
          await other.close();
        }
      },
      recall: async (query) => hitsOf(await vault.recallAsync(query, { k: 8 })),
      disturb: async () => {
        expect(await damageSegments(root)).toBeGreaterThan(2);
        // Other reads meet the damage (in blocks no read had kept yet) and rebuild the text index in place.
        for (let i = 0; i < 60; i++) vault.recall(`word${i}beta quay${i} 第${i}个灯塔`, { k: 3 });
        expect(notices.join('\n')).toMatch(/rebuilt from the notes/);
      },
      end: () => vault.close(),
    };
  },
};

describe('a read in flight when its index closes or is replaced', () => {
  for (const [way, make] of Object.entries(WAYS)) {
    it(`answers as the open index: ${way}`, async () => {
      for (const seed of [1, 2, 3]) {
        const dir = await mkdtemp(join(tmpdir(), 'mem-close-read-'));
        dirs.push(dir);
        const root = join(dir, 'agent', `user${seed}`);
        const setup = await make(root, seed);
        const query = `word${seed}beta harbor quay${seed * 7} seed${seed}`;
        try {
          const open = await (setup.reference ?? setup.recall)(query);
          expect(open.length).toBeGreaterThan(0);
          // The next read of `query` waits for its vector until `release`.
          let release: () => void = () => undefined;
          const until = new Promise<void>((resolve) => {
            release = resolve;
          });
          stub.requests.length = 0;
          stub.state.hold = { when: (input) => input.length === 1 && input[0] === query, until };
          const reading = setup.recall(query);
          await expect
            .poll(() => stub.requests.some((r) => r.length === 1 && r[0] === query), WAIT)
            .toBe(true);
          // The close (or the rebuild) ends while the read still waits: it does not wait for readers.
          await setup.disturb();
          release();
          expect(await reading, `seed ${seed}`).toEqual(open);
        } finally {
          stub.state.hold = undefined;
          await setup.end();
        }
      }
    });
  }

  it('a reader holding the index reads it after close; once released, a read is refused with CLOSED', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-close-read-'));
    dirs.push(dir);
    const root = join(dir, 'vault');
    const vault = await cachedVault(root, 9);
    const open = hitsOf(vault.recall('word9beta harbor', { k: 8 }));
    const held = vault.holdIndex();
    await vault.close();
    expect(hitsOf(vault.recall('word9beta harbor', { k: 8 }))).toEqual(open);
    held();
    held(); // a second release changes nothing
    let refused: unknown;
    try {
      vault.holdIndex();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(MemError);
    expect((refused as MemError).code).toBe('CLOSED');
    expect(() => vault.recall('word9beta harbor', { k: 8 })).toThrow(/closed/);
  });
});
