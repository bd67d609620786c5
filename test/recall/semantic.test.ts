import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { decodeVectorFile } from '../../src/indexing/vectors/vector-file.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

const NOW = new Date('2026-11-30T10:00:00+08:00');

const FILES: Record<string, string> = {
  'profile/transport.md': '# Transport\nThe automobile broke down on the highway last spring.\n',
  'profile/garage.md': '# Garage\nMy car is red. The car is a small car, and I wash the car weekly.\n',
  'profile/food.md': '# Food\nRain loves spicy noodles and green tea.\n',
  'episodes/daily/2026-11-28.md':
    '---\ndate: 2026-11-28\n---\n# 2026-11-28\n\n- 10:00 **Rain:** Went hiking with Mei in the hills. ^e1\n- 11:00 **Rain:** Ate noodles after the hike. ^e2\n',
};

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
const opened: Vault[] = [];

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((vault) => vault.close()));
  stub.requests.length = 0;
  stub.state.failWith = undefined;
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

async function open(embeddings: object, notices: string[] = []): Promise<Vault> {
  const root = await makeVault(FILES, {
    config: {
      timezone: 'Asia/Shanghai',
      embeddings: { baseURL: stub.baseURL, model: 'stub-1', ...embeddings },
    },
  });
  const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
  opened.push(vault);
  return vault;
}

async function reopen(vault: Vault, notices: string[] = []): Promise<Vault> {
  await vault.close();
  const again = await openVault({ path: vault.root, onNotice: (m) => notices.push(m) });
  opened.push(again);
  return again;
}

describe('semantic recall (embeddings)', () => {
  it('is off by default: no request, and the same output as lexical recall, byte for byte', async () => {
    const vault = await open({});
    expect(vault.config.embeddings.enabled).toBe(false);
    for (const query of ['automobile', 'noodles hiking', 'what did Rain eat']) {
      const lexical = vault.recall(query, { now: NOW });
      const viaAsync = await vault.recallAsync(query, { now: NOW });
      expect(JSON.stringify(viaAsync)).toBe(JSON.stringify(lexical));
      expect(lexical.hits.every((hit) => !('semantic' in hit.parts))).toBe(true);
    }
    expect(stub.requests).toHaveLength(0);
    await expect(vault.embed()).rejects.toThrow(/embeddings are off/);
    expect(stub.requests).toHaveLength(0);
  });

  it('fuses the semantic ranking in by reciprocal rank: a paraphrase sharing no word is reached', async () => {
    const vault = await open({ enabled: true });
    const lexical = vault.recall('automobile', { now: NOW }).hits.map((hit) => hit.path);
    expect(lexical[0]).toBe('profile/transport.md');
    expect(lexical).not.toContain('profile/garage.md');

    const result = await vault.recallAsync('automobile', { now: NOW });
    expect(result.embeddings).toEqual({
      model: 'stub-1',
      ranking: 'fused',
      fusion: 'rrf k=60',
      unembedded: 0,
    });
    const { hits } = result;
    // Transport: first by words, second by meaning; garage: no word in common, first by meaning.
    expect(hits.map((hit) => hit.path).slice(0, 2)).toEqual(['profile/transport.md', 'profile/garage.md']);
    const [transport, garage] = hits;
    expect(garage?.parts.semantic).toBe(1);
    expect(garage?.parts.text).toBe(0);
    expect(garage?.reasons.join('; ')).toMatch(/close in meaning \(cosine 0\.\d\d\)/);
    expect(garage?.reasons.join('; ')).toContain('rank fusion: words -, meaning #1 (RRF k=60)');
    expect(garage?.score).toBe(Math.round((61 / 2 / 61) * 10_000) / 10_000);
    expect(transport?.reasons.join('; ')).toContain('rank fusion: words #1, meaning #2 (RRF k=60)');
    expect(transport?.score).toBe(Math.round((((1 / 61 + 1 / 62) * 61) / 2) * 10_000) / 10_000);
  });

  it('embeddings.rrfK sets the k of the fusion', async () => {
    const vault = await open({ enabled: true, rrfK: 1 });
    const { hits } = await vault.recallAsync('automobile', { now: NOW });
    const transport = hits.find((hit) => hit.path === 'profile/transport.md');
    expect(transport?.reasons.join('; ')).toContain('(RRF k=1)');
    expect(transport?.score).toBe(Math.round((1 / 2 + 1 / 3) * 10_000) / 10_000);
  });

  it('caches vectors in .mem/ by text and model: unchanged sections are never embedded again', async () => {
    const vault = await open({ enabled: true });
    const first = await vault.embed();
    expect(first.embedded).toBe(first.sections);
    expect(first.sections).toBeGreaterThan(4);
    const afterFirst = stub.requests.length;
    expect((await vault.embed()).embedded).toBe(0);
    expect(stub.requests.length).toBe(afterFirst);

    // A recall embeds only its query.
    await vault.recallAsync('noodles', { now: NOW });
    expect(stub.requests.slice(afterFirst)).toEqual([['noodles']]);

    const file = join(vault.root, '.mem', 'embeddings-stub-1.vec');
    const saved = decodeVectorFile(await readFile(file), 'stub-1');
    expect(saved?.count).toBe(first.sections);

    // A new process reads the cache: still only the query is sent.
    const again = await reopen(vault);
    const before = stub.requests.length;
    await again.recallAsync('hiking', { now: NOW });
    expect(stub.requests.slice(before)).toEqual([['hiking']]);
  });

  it('sends sections in batches of embeddings.batchSize', async () => {
    const vault = await open({ enabled: true, batchSize: 2 });
    const progress: Array<[number, number]> = [];
    const { sections } = await vault.embed((done, total) => progress.push([done, total]));
    expect(stub.requests).toHaveLength(Math.ceil(sections / 2));
    expect(stub.requests.every((input) => input.length <= 2)).toBe(true);
    expect(stub.requests.flat()).toHaveLength(sections);
    expect(progress.at(-1)).toEqual([sections, sections]);
  });

  it('re-embeds only the section an edit changed', async () => {
    const vault = await open({ enabled: true });
    await vault.embed();
    const before = stub.requests.length;
    await writeFile(
      join(vault.root, 'profile/food.md'),
      '# Food\nRain loves spicy dumplings and green tea.\n',
    );
    await vault.refresh();
    const { embedded } = await vault.embed();
    expect(embedded).toBe(1);
    expect(stub.requests.slice(before)).toEqual([['Rain loves spicy dumplings and green tea.']]);
    const { hits } = await vault.recallAsync('dumplings', { now: NOW });
    expect(hits[0]?.path).toBe('profile/food.md');
  });

  it('falls back to lexical recall when the endpoint fails, with one warning', async () => {
    const notices: string[] = [];
    const vault = await open({ enabled: true }, notices);
    stub.state.failWith = 500;
    const sent: number[] = [];
    for (const query of ['noodles', 'hiking']) {
      const { embeddings, ...result } = await vault.recallAsync(query, { now: NOW });
      expect(JSON.stringify(result)).toBe(JSON.stringify(vault.recall(query, { now: NOW })));
      expect(embeddings).toMatchObject({ model: 'stub-1', ranking: 'lexical' });
      expect(embeddings?.reason).toMatch(/the embeddings endpoint failed/);
      sent.push(stub.requests.length);
    }
    // The first recall tried (one request, no retry); the second did not wait on the endpoint again.
    expect(sent).toEqual([1, 1]);
    expect(notices.filter((n) => /embeddings/.test(n))).toHaveLength(1);
    expect(notices[0]).toMatch(/rank by words only/);
    expect(vault.embeddingsHealth()).toMatchObject({ model: 'stub-1', state: 'down' });
  });
});
