import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { decodeVectorFile } from '../../src/indexing/vector-file.js';
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

  it('fuses cosine similarity in: a paraphrase sharing no word is reached, and outranks a weaker lexical match', async () => {
    const vault = await open({ enabled: true, weight: 2 });
    const lexical = vault.recall('automobile', { now: NOW }).hits.map((hit) => hit.path);
    expect(lexical[0]).toBe('profile/transport.md');
    expect(lexical).not.toContain('profile/garage.md');

    const { hits } = await vault.recallAsync('automobile', { now: NOW });
    expect(hits[0]?.path).toBe('profile/garage.md');
    expect(hits[0]?.parts.semantic).toBe(1);
    expect(hits[0]?.parts.text).toBe(0);
    expect(hits[0]?.reasons.join('; ')).toMatch(/close in meaning \(cosine 0\.\d\d\)/);
    expect(hits.map((hit) => hit.path)).toContain('profile/transport.md');
    const transport = hits.find((hit) => hit.path === 'profile/transport.md');
    expect(transport?.parts.text).toBe(1);
    expect(transport?.parts.semantic).toBeGreaterThan(0);
    expect(transport?.parts.semantic).toBeLessThan(1);
  });

  it('with weight 0 keeps the lexical order and shows the semantic part', async () => {
    const vault = await open({ enabled: true, weight: 0 });
    const lexical = vault.recall('noodles', { now: NOW }).hits;
    const fused = (await vault.recallAsync('noodles', { now: NOW })).hits.filter((hit) => hit.score > 0);
    expect(lexical.length).toBeGreaterThan(1);
    expect(fused.map((hit) => [hit.id, hit.score])).toEqual(lexical.map((hit) => [hit.id, hit.score]));
    expect(fused.every((hit) => typeof hit.parts.semantic === 'number')).toBe(true);
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
      const result = await vault.recallAsync(query, { now: NOW });
      expect(JSON.stringify(result)).toBe(JSON.stringify(vault.recall(query, { now: NOW })));
      sent.push(stub.requests.length);
    }
    // The first recall tried (one request, no retry); the second did not wait on the endpoint again.
    expect(sent).toEqual([1, 1]);
    expect(notices.filter((n) => /embeddings/.test(n))).toHaveLength(1);
    expect(notices[0]).toMatch(/lexical only/);
  });
});
