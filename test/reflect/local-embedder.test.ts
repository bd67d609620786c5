// The local embeddings provider through the real Transformers.js and ONNX Runtime path, on a tiny
// BERT-shaped model the test builds (test/helpers/tiny-onnx.ts): no model can be downloaded here,
// so a loopback "hub" stands in for huggingface.co where a download is the point.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type MemConfig, resolveConfig } from '../../src/core/config/config.js';
import { MemError } from '../../src/core/errors.js';
import { createLocalEmbedder, MODEL_FILES, modelCacheDir } from '../../src/models/local-embedder.js';
import { makeEmbedder } from '../../src/models/make-embedder.js';
import { closedEndpoint, startHubStub } from '../helpers/hub-stub.js';
import { expectedVector, tinyModel, tinyModelFiles, writeTinyModel } from '../helpers/tiny-onnx.js';

const WORDS = ['knee', 'ligament', 'healing', 'physio', 'noodles', 'rain', 'garden', 'tea', 'walk', 'red'];
const HANZI = ['膝', '盖', '的', '韧', '带', '在', '恢', '复'];
const model = tinyModel([...WORDS, ...HANZI]);

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-models-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const configFor = (modelId: string): MemConfig =>
  resolveConfig({ embeddings: { enabled: true, provider: 'local', model: modelId } });

/** An embedder over the tiny model in a fresh cache folder, never going to the network. */
async function offlineEmbedder(modelId: string) {
  const cache = await tempDir();
  await writeTinyModel(cache, modelId, model);
  const notices: string[] = [];
  const embedder = makeEmbedder(configFor(modelId), { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1' }, (m) =>
    notices.push(m),
  );
  return { embedder, notices, cache };
}

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

function expectClose(actual: number[] | undefined, expected: number[]) {
  expect(actual).toHaveLength(expected.length);
  actual?.forEach((x, i) => {
    expect(x).toBeCloseTo(expected[i] as number, 5);
  });
}

describe('the local embeddings provider on a self-built ONNX model', () => {
  it('loads through Transformers.js and ONNX Runtime: one normalized vector of the model dimension per text', async () => {
    const { embedder, notices } = await offlineEmbedder('test/tiny-load');
    expect(embedder.model).toBe('test/tiny-load');
    const vectors = await embedder.embed(['knee healing', 'tea in the garden', '']);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toHaveLength(model.dim);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    }
    expectClose(vectors[0], expectedVector(model, ['knee', 'healing']));
    // "in" and "the" are not in the vocabulary: [UNK]
    expectClose(vectors[1], expectedVector(model, ['tea', '[UNK]', '[UNK]', 'garden']));
    expect(notices).toEqual([]);
  });

  it('mean-pools by the attention mask: a text padded in a batch gets the vector it gets alone', async () => {
    const { embedder } = await offlineEmbedder('test/tiny-pool');
    const words = fc.constantFrom(...WORDS, ...HANZI);
    await fc.assert(
      fc.asyncProperty(
        fc.array(words, { minLength: 1, maxLength: 6 }),
        fc.array(words, { minLength: 7, maxLength: 14 }),
        async (short, long) => {
          const text = short.join(' ');
          const [alone] = await embedder.embed([text]);
          const [padded, other] = await embedder.embed([text, long.join(' ')]);
          expectClose(alone, expectedVector(model, short));
          expectClose(padded, alone as number[]);
          expectClose(other, expectedVector(model, long));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('puts texts that share tokens closer than texts that share none', async () => {
    const { embedder } = await offlineEmbedder('test/tiny-close');
    // Three texts of one length: a and b share `shared` words, c shares none with a.
    const split = fc.shuffledSubarray(WORDS, { minLength: 6, maxLength: 6 }).chain((six) =>
      fc.integer({ min: 1, max: 2 }).map((shared) => ({
        a: six.slice(0, 3),
        b: [...six.slice(0, shared), ...six.slice(3, 6 - shared)],
        c: six.slice(3, 6),
      })),
    );
    await fc.assert(
      fc.asyncProperty(split, async ({ a, b, c }) => {
        const [va, vb, vc] = await embedder.embed([a.join(' '), b.join(' '), c.join(' ')]);
        expect(cosine(va as number[], vb as number[])).toBeGreaterThan(
          cosine(va as number[], vc as number[]) + 0.05,
        );
      }),
      { numRuns: 20 },
    );
  });

  it('tokenizes and embeds Chinese, one token per character, mixed with Latin words', async () => {
    const { embedder } = await offlineEmbedder('test/tiny-zh');
    const [zh, mixed, unknown] = await embedder.embed(['膝盖的韧带在恢复', 'knee 膝盖 healing', '膝猫']);
    expectClose(zh, expectedVector(model, ['膝', '盖', '的', '韧', '带', '在', '恢', '复']));
    expectClose(mixed, expectedVector(model, ['knee', '膝', '盖', 'healing']));
    expectClose(unknown, expectedVector(model, ['膝', '[UNK]']));
  });

  it('offline with the model missing: names the model, the folder and the files to place there, and loads once they are', async () => {
    const cache = await tempDir();
    const embedder = createLocalEmbedder(
      configFor('test/tiny-missing'),
      { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1' },
      () => undefined,
    );
    const error = await embedder.embed(['knee']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MemError);
    const message = (error as MemError).message;
    expect(message).toContain('"test/tiny-missing"');
    expect(message).toContain(cache);
    expect(message).toContain('downloads are off (HF_HUB_OFFLINE)');
    for (const file of [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_quantized.onnx',
    ])
      expect(message).toContain(file);
    expect(message).toContain(
      `https://huggingface.co/test/tiny-missing/tree/main into ${join(cache, 'test', 'tiny-missing')}/`,
    );
    // The files placed by hand: the same embedder loads them on its next call.
    await writeTinyModel(cache, 'test/tiny-missing', model);
    expectClose((await embedder.embed(['knee']))[0], expectedVector(model, ['knee']));
  });

  it('when the hub cannot be reached: names the host it tried, the folder, and a mirror', async () => {
    const cache = await tempDir();
    const endpoint = await closedEndpoint();
    const embedder = createLocalEmbedder(
      configFor('test/tiny-unreachable'),
      { MEM_MODEL_CACHE: cache, HF_ENDPOINT: endpoint },
      () => undefined,
    );
    const message = await embedder.embed(['knee']).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toMatch(
      new RegExp(
        `^could not download the local embedding model "test/tiny-unreachable" from ${new URL(endpoint).host} into `,
      ),
    );
    expect(message).toContain(cache);
    expect(message).toContain('(fetch failed: ECONNREFUSED)');
    expect(message).toContain('HF_ENDPOINT');
    expect(message).toContain('onnx/model_quantized.onnx');
  });

  it('downloads the model on first use into the cache folder, with progress, and reads it from there after', async () => {
    const cache = await tempDir();
    const hub = await startHubStub({ 'test/tiny-download': tinyModelFiles(model) });
    try {
      const notices: string[] = [];
      const env = { MEM_MODEL_CACHE: cache, HF_ENDPOINT: hub.endpoint };
      const embedder = createLocalEmbedder(configFor('test/tiny-download'), env, (m) => notices.push(m));
      expectClose((await embedder.embed(['rain walk']))[0], expectedVector(model, ['rain', 'walk']));
      expect(notices[0]).toBe(
        `mem: downloading the embedding model test/tiny-download from ${new URL(hub.endpoint).host} into ${cache} (first use only)`,
      );
      expect(notices).toContain('mem: downloading test/tiny-download: 100% of 0.0 MB');
      expect(notices.at(-1)).toBe('mem: the embedding model test/tiny-download is ready');
      const folder = join(cache, 'test', 'tiny-download');
      const served = tinyModelFiles(model);
      expect(Object.keys(served).sort()).toEqual([...MODEL_FILES].sort());
      for (const [file, content] of Object.entries(served))
        expect(Buffer.compare(await readFile(join(folder, file)), Buffer.from(content))).toBe(0);
      // Only the model's files were fetched (and the first byte of each, for the progress total).
      expect(new Set(hub.requests)).toEqual(
        new Set(MODEL_FILES.map((f) => `/test/tiny-download/resolve/main/${f}`)),
      );

      // A new process would find it in the cache: no request, no notice.
      const asked = hub.requests.length;
      const later: string[] = [];
      const again = createLocalEmbedder(configFor('test/tiny-download'), env, (m) => later.push(m));
      expectClose((await again.embed(['tea']))[0], expectedVector(model, ['tea']));
      expect(hub.requests.slice(asked)).toEqual([]);
      expect(later).toEqual([]);
    } finally {
      await hub.close();
    }
  });

  it('refuses an HF_ENDPOINT that is no http(s) URL, naming it', async () => {
    const embedder = createLocalEmbedder(
      configFor('test/any'),
      { MEM_MODEL_CACHE: await tempDir(), HF_ENDPOINT: 'hf-mirror.com' },
      () => undefined,
    );
    await expect(embedder.embed(['knee'])).rejects.toThrow(
      'HF_ENDPOINT must be an http(s) URL such as https://hf-mirror.com, got "hf-mirror.com"',
    );
  });

  it('says how to install @huggingface/transformers when it is not installed', async () => {
    const notInstalled = () =>
      Promise.reject(
        Object.assign(new Error("Cannot find package '@huggingface/transformers'"), {
          code: 'ERR_MODULE_NOT_FOUND',
        }),
      );
    const embedder = createLocalEmbedder(
      configFor('test/any'),
      { HF_HUB_OFFLINE: '1' },
      () => undefined,
      notInstalled,
    );
    await expect(embedder.embed(['knee'])).rejects.toThrow(/npm install @huggingface\/transformers/);
    expect(await embedder.embed([])).toEqual([]);
  });
});

describe('the model cache folder', () => {
  const config = resolveConfig({ embeddings: { provider: 'local' } });
  it('is MEM_MODEL_CACHE, else embeddings.cacheDir, else under XDG_CACHE_HOME or ~/.cache', () => {
    const set = resolveConfig({ embeddings: { provider: 'local', cacheDir: '~/models' } });
    expect(modelCacheDir(set, { MEM_MODEL_CACHE: '/m' }, '/home/u')).toBe('/m');
    expect(modelCacheDir(set, {}, '/home/u')).toBe('/home/u/models');
    expect(modelCacheDir(config, { XDG_CACHE_HOME: '/xdg' }, '/home/u')).toBe('/xdg/memvault/models');
    expect(modelCacheDir(config, { XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.cache/memvault/models',
    );
    expect(modelCacheDir(config, {}, '/home/u')).toBe('/home/u/.cache/memvault/models');
  });

  it('defaults the model by provider and refuses a relative cacheDir', () => {
    expect(config.embeddings.model).toBe('Xenova/all-MiniLM-L6-v2');
    expect(resolveConfig({}).embeddings.model).toBe('text-embedding-3-small');
    expect(() => resolveConfig({ embeddings: { cacheDir: 'models' } })).toThrow(
      /embeddings\.cacheDir must be an absolute path or start with "~\/"/,
    );
  });
});
