import { readFile, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VectorCache,
  type VectorEncoding,
  vectorCacheFile,
} from '../../src/indexing/vectors/vector-cache.js';
import { decodeVectorFile } from '../../src/indexing/vectors/vector-file.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// The vector file is only a cache: whatever its bytes, a load never throws; a file that is not
// exactly what a save wrote counts as empty, and the next save writes a whole one again.

const TEXTS = ['tea', 'milk', 'coffee', 'the physio says the ligament is healing', '上海'];
const embed = async (texts: string[]) =>
  texts.map((t) => Array.from({ length: 5 }, (_, i) => t.charCodeAt(i % t.length) - 50 * i));

describe.each<VectorEncoding>(['float32', 'int8'])('a damaged vector file (%s)', (encoding) => {
  let root: string;
  let good: Buffer;
  beforeAll(async () => {
    root = await makeVault();
    const cache = await VectorCache.load(root, 'stub-model', { encoding });
    await cache.fill(TEXTS, embed, 2);
    await cache.save(root);
    good = await readFile(vectorCacheFile(root, 'stub-model'));
  });
  afterAll(cleanupVaults);

  async function loadBytes(bytes: Uint8Array): Promise<VectorCache> {
    await writeFile(vectorCacheFile(root, 'stub-model'), bytes);
    return VectorCache.load(root, 'stub-model', { encoding });
  }

  it('whole, loads every vector', async () => {
    const cache = await loadBytes(good);
    expect(cache.size).toBe(TEXTS.length);
    expect(decodeVectorFile(good, 'stub-model')?.count).toBe(TEXTS.length);
  });

  it('cut short anywhere, counts as empty and is rewritten whole by the next save', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: good.length - 1 }), async (length) => {
        const cache = await loadBytes(good.subarray(0, length));
        expect(cache.size).toBe(0);
        expect(cache.get('tea')).toBeUndefined();
        expect(cache.topK([1, 0, 0, 0, 0], 3).slots).toHaveLength(0);
        await cache.fill(TEXTS, embed, 8);
        await cache.save(root);
        expect(await readFile(vectorCacheFile(root, 'stub-model'))).toEqual(good);
      }),
      { numRuns: 150 },
    );
  });

  it('with bytes changed anywhere, or bytes added, counts as empty and never throws', async () => {
    const flips = fc.array(
      fc.record({ at: fc.nat({ max: good.length - 1 }), xor: fc.integer({ min: 1, max: 255 }) }),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(flips, fc.uint8Array({ maxLength: 8 }), async (changes, tail) => {
        const bytes = Buffer.concat([good, tail]);
        for (const { at, xor } of changes) bytes[at] = (bytes[at] ?? 0) ^ xor;
        if (bytes.equals(good)) return;
        const cache = await loadBytes(bytes);
        expect(cache.size).toBe(0);
        // It is rewritten: a save after a fill gives the whole file back.
        await cache.fill(TEXTS, embed, 8);
        await cache.save(root);
        expect(await readFile(vectorCacheFile(root, 'stub-model'))).toEqual(good);
      }),
      { numRuns: 300 },
    );
  });

  it('of random bytes, or another kind of file, counts as empty', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        expect((await loadBytes(bytes)).size).toBe(0);
      }),
      { numRuns: 100 },
    );
    for (const text of ['{"model":"stub-model","vectors":{}}', '', 'MEMVEC\r\n']) {
      expect((await loadBytes(Buffer.from(text))).size).toBe(0);
    }
  });

  it('is rewritten even when nothing needs embedding', async () => {
    const cache = await loadBytes(good.subarray(0, 40));
    await cache.save(root);
    const empty = await VectorCache.load(root, 'stub-model', { encoding });
    expect(empty.size).toBe(0);
    expect(decodeVectorFile(await readFile(vectorCacheFile(root, 'stub-model')), 'stub-model')?.count).toBe(
      0,
    );
  });

  it('of another model counts as empty', async () => {
    await writeFile(vectorCacheFile(root, 'stub-model'), good);
    expect(decodeVectorFile(good, 'stub-modem')).toBeUndefined();
    expect((await VectorCache.load(root, 'stub-model', { encoding })).size).toBe(TEXTS.length);
  });
});
