import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureCacheDir } from '../../src/core/cache-dir.js';
import {
  type EmbedTexts,
  legacyVectorCacheFile,
  VectorCache,
  type VectorEncoding,
  vectorCacheFile,
} from '../../src/indexing/vectors/vector-cache.js';
import { hashText } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(cleanupVaults);

const ENCODINGS: VectorEncoding[] = ['float32', 'int8'];

/** A deterministic embedding of each text: `dims` values from its hash; counts the texts embedded. */
function fakeEmbed(dims: number) {
  const asked: string[] = [];
  const vectorOf = (text: string) => {
    const hex = hashText(`${dims}:${text}`);
    return Array.from(
      { length: dims },
      (_, i) => Number.parseInt(hex.slice((i * 2) % 62, ((i * 2) % 62) + 2), 16) - 127.5,
    );
  };
  const embed: EmbedTexts = async (texts) => {
    asked.push(...texts);
    return texts.map(vectorOf);
  };
  return { embed, asked, vectorOf };
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
};

describe.each(ENCODINGS)('VectorCache (%s)', (encoding) => {
  it('keeps each text’s vector, normalized, across a save and a load', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (texts, dims, batchSize) => {
          const root = await makeVault();
          const { embed, asked, vectorOf } = fakeEmbed(dims);
          const cache = await VectorCache.load(root, 'm', { encoding });
          expect(await cache.fill(texts, embed, batchSize)).toBe(texts.length);
          await cache.save(root);
          const loaded = await VectorCache.load(root, 'm', { encoding });
          expect(loaded.size).toBe(texts.length);
          expect(await loaded.fill(texts, embed, batchSize)).toBe(0);
          expect(asked).toHaveLength(texts.length);
          for (const text of texts) {
            const stored = loaded.get(text);
            expect(stored).toHaveLength(dims);
            // Same direction (int8: to within its rounding), unit length.
            expect(cosine(stored ?? [], vectorOf(text))).toBeGreaterThan(
              encoding === 'int8' ? 0.999 : 0.999999,
            );
            expect(Math.hypot(...(stored ?? []))).toBeCloseTo(1, 5);
            const slot = loaded.slotOf(text);
            expect(slot).toBeDefined();
            expect(loaded.hashAt(slot ?? -1)).toBe(hashText(text));
          }
          expect(loaded.get(`${texts[0]}!`)).toBeUndefined();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('saves only the vectors of the text last asked for', async () => {
    const root = await makeVault();
    const { embed, asked } = fakeEmbed(8);
    const cache = await VectorCache.load(root, 'm', { encoding });
    await cache.fill(['a', 'b'], embed, 8);
    await cache.fill(['b', 'c'], embed, 8);
    await cache.save(root);
    const loaded = await VectorCache.load(root, 'm', { encoding });
    expect(loaded.get('a')).toBeUndefined();
    expect(loaded.get('b')).toBeDefined();
    expect(loaded.get('c')).toBeDefined();
    expect(loaded.size).toBe(2);
    // Asking again for the same text (in any order) changes nothing: the save writes nothing.
    await loaded.fill(['c', 'b'], embed, 8);
    await loaded.fill(['b', 'c', 'b'], embed, 8);
    await writeFile(vectorCacheFile(root, 'm'), 'left alone');
    await loaded.save(root);
    expect(await readFile(vectorCacheFile(root, 'm'), 'utf8')).toBe('left alone');
    expect(asked).toEqual(['a', 'b', 'c']);
    // A dropped text is saved away once it is no longer asked for.
    await loaded.fill(['c'], embed, 8);
    await loaded.save(root);
    expect((await VectorCache.load(root, 'm', { encoding })).size).toBe(1);
  });

  it('keeps the vectors embedded before a failed request', async () => {
    const root = await makeVault();
    const { embed } = fakeEmbed(4);
    let calls = 0;
    const failing: EmbedTexts = async (texts) => {
      if (++calls === 2) throw new Error('endpoint down');
      return embed(texts);
    };
    const cache = await VectorCache.load(root, 'm', { encoding });
    await expect(cache.fill(['a', 'b', 'c'], failing, 1)).rejects.toThrow('endpoint down');
    await cache.save(root);
    const loaded = await VectorCache.load(root, 'm', { encoding });
    expect(loaded.get('a')).toBeDefined();
    expect(loaded.get('b')).toBeUndefined();
  });

  it('stores no vector that is not one: a wrong length, NaN, Infinity, a missing entry', async () => {
    const root = await makeVault();
    const cache = await VectorCache.load(root, 'm', { encoding });
    await cache.fill(
      ['ok', 'short', 'nan', 'inf', 'none'],
      async () => [
        [1, 2, 3],
        [1, 2],
        [1, Number.NaN, 3],
        [1, 2, Number.POSITIVE_INFINITY],
      ],
      8,
    );
    expect(cache.get('ok')).toHaveLength(3);
    for (const text of ['short', 'nan', 'inf', 'none']) expect(cache.get(text)).toBeUndefined();
    // A zero vector is stored as it is: its cosine with anything is 0.
    await cache.fill(['zero'], async () => [[0, 0, 0]], 8);
    expect(cache.get('zero')).toEqual([0, 0, 0]);
  });

  it('starts over when the model answers in another dimension', async () => {
    const root = await makeVault();
    const cache = await VectorCache.load(root, 'm', { encoding });
    await cache.fill(['a'], fakeEmbed(4).embed, 8);
    await cache.fill(['a', 'b'], fakeEmbed(6).embed, 8);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toHaveLength(6);
    await cache.save(root);
    const loaded = await VectorCache.load(root, 'm', { encoding });
    expect(loaded.size).toBe(1);
    expect(await loaded.fill(['a', 'b'], fakeEmbed(6).embed, 8)).toBe(1);
    expect(loaded.get('a')).toHaveLength(6);
  });

  it('reads a file written in the other encoding and rewrites it in its own', async () => {
    const root = await makeVault();
    const other = encoding === 'int8' ? 'float32' : 'int8';
    const { embed, asked, vectorOf } = fakeEmbed(16);
    const first = await VectorCache.load(root, 'm', { encoding: other });
    await first.fill(['a', 'b'], embed, 8);
    await first.save(root);
    const converted = await VectorCache.load(root, 'm', { encoding });
    expect(cosine(converted.get('a') ?? [], vectorOf('a'))).toBeGreaterThan(0.999);
    await converted.save(root);
    const bytes = await readFile(vectorCacheFile(root, 'm'));
    expect(bytes.readUInt32LE(16)).toBe(encoding === 'float32' ? 1 : 2);
    expect(await (await VectorCache.load(root, 'm', { encoding })).fill(['a', 'b'], embed, 8)).toBe(0);
    expect(asked).toEqual(['a', 'b']);
  });
});

describe('the JSON cache of earlier versions', () => {
  async function writeLegacy(root: string, model: string, vectors: Record<string, unknown>) {
    await ensureCacheDir(root);
    await writeFile(legacyVectorCacheFile(root, model), JSON.stringify({ model, vectors }));
  }

  it('is read once, nothing is embedded again, and the save replaces it with the binary file', async () => {
    const root = await makeVault();
    await writeLegacy(root, 'm', { [hashText('tea')]: [3, 4], [hashText('milk')]: [0, 2], junk: [1, 1] });
    const { embed, asked } = fakeEmbed(2);
    const cache = await VectorCache.load(root, 'm');
    expect(await cache.fill(['tea', 'milk'], embed, 8)).toBe(0);
    expect(cache.get('tea')?.[0]).toBeCloseTo(0.6, 2);
    expect(cache.get('tea')?.[1]).toBeCloseTo(0.8, 2);
    await cache.save(root);
    expect(asked).toEqual([]);
    const files = await readdir(join(root, '.mem'));
    expect(files.filter((f) => f.startsWith('embeddings-'))).toEqual(['embeddings-m.vec']);
    const again = await VectorCache.load(root, 'm');
    expect(await again.fill(['tea', 'milk'], embed, 8)).toBe(0);
    expect(again.get('milk')?.[1]).toBeCloseTo(1, 5);
  });

  it('of another model, or damaged, counts as empty and is removed by the save', async () => {
    for (const text of [
      JSON.stringify({ model: 'other', vectors: { [hashText('tea')]: [1] } }),
      '{"model":',
    ]) {
      const root = await makeVault();
      await ensureCacheDir(root);
      await writeFile(legacyVectorCacheFile(root, 'm'), text);
      const cache = await VectorCache.load(root, 'm');
      expect(cache.get('tea')).toBeUndefined();
      await cache.fill(['tea'], fakeEmbed(2).embed, 8);
      await cache.save(root);
      expect((await readdir(join(root, '.mem'))).filter((f) => f.startsWith('embeddings-'))).toEqual([
        'embeddings-m.vec',
      ]);
    }
  });

  it('is not read when the binary file is there', async () => {
    const root = await makeVault();
    const cache = await VectorCache.load(root, 'm');
    await cache.fill(['tea'], async () => [[1, 0]], 8);
    await cache.save(root);
    await writeLegacy(root, 'm', { [hashText('milk')]: [0, 1] });
    const loaded = await VectorCache.load(root, 'm');
    expect(loaded.get('milk')).toBeUndefined();
    expect(loaded.get('tea')).toBeDefined();
  });
});

describe('save', () => {
  it('leaves no temp file and writes the model’s file only', async () => {
    const root = await makeVault();
    const a = await VectorCache.load(root, 'model/a b');
    await a.fill(['x'], async () => [[1]], 8);
    await a.save(root);
    expect((await readdir(join(root, '.mem'))).sort()).toEqual(['.gitignore', 'embeddings-model_a_b.vec']);
    expect(vectorCacheFile(root, 'model/a b')).toBe(join(root, '.mem', 'embeddings-model_a_b.vec'));
  });

  it('a model whose name maps to the same file reads it as empty (the header holds the name)', async () => {
    const root = await makeVault();
    const a = await VectorCache.load(root, 'a/b');
    await a.fill(['x'], async () => [[1, 2]], 8);
    await a.save(root);
    const b = await VectorCache.load(root, 'a b');
    expect(b.size).toBe(0);
    expect((await VectorCache.load(root, 'a/b')).size).toBe(1);
  });
});
