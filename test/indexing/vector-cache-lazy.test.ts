import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openVault } from '../../src/index.js';
import { VectorCache } from '../../src/indexing/vectors/vector-cache.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// The vector file can be hundreds of megabytes: a vault reads it on its first semantic query, once,
// and never for an open or a lexical recall.

const NOW = new Date('2026-11-30T10:00:00+08:00');
let stub: Awaited<ReturnType<typeof startEmbedStub>>;
beforeAll(async () => {
  stub = await startEmbedStub();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await stub.close();
  await cleanupVaults();
});

describe('the vector cache is loaded lazily', () => {
  it('not by an open or a lexical recall; once, by the first semantic query', async () => {
    const root = await makeVault(
      { 'profile/food.md': '# Food\nRain loves spicy noodles and green tea.\n' },
      {
        config: {
          timezone: 'Asia/Shanghai',
          embeddings: { enabled: true, baseURL: stub.baseURL, model: 'stub-1' },
        },
      },
    );
    const first = await openVault({ path: root });
    await first.embed();
    await first.close();

    const load = vi.spyOn(VectorCache, 'load');
    const vault = await openVault({ path: root });
    try {
      expect(vault.recall('noodles', { now: NOW }).hits.length).toBeGreaterThan(0);
      expect(load).not.toHaveBeenCalled();
      const requests = stub.requests.length;
      await vault.recallAsync('tea', { now: NOW });
      await vault.recallAsync('noodles', { now: NOW });
      expect(load).toHaveBeenCalledTimes(1);
      // The sections came from the file: only the two queries were embedded.
      expect(stub.requests.slice(requests)).toEqual([['tea'], ['noodles']]);
    } finally {
      await vault.close();
    }
  });
});
