import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

let stub: Awaited<ReturnType<typeof startEmbedStub>>;

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

describe('mem index --embed and mem recall with embeddings on', () => {
  it('embeds once, then recall sends only the query and --explain shows the semantic part', async () => {
    const root = await makeVault(
      {
        'profile/garage.md': '# Garage\nMy car is red and small.\n',
        'profile/food.md': '# Food\nRain loves noodles.\n',
      },
      { config: { timezone: 'UTC', embeddings: { enabled: true, baseURL: stub.baseURL, model: 'stub-1' } } },
    );
    const indexed = await mem(['index', '--embed', '--json'], { cwd: root });
    expect(indexed.code).toBe(0);
    const stats = JSON.parse(indexed.stdout) as { sections: number; embedded: number };
    expect(stats.embedded).toBe(stats.sections);
    const before = stub.requests.length;

    const recalled = await mem(['recall', 'automobile', '--explain', '--now', '2026-11-30T10:00:00Z'], {
      cwd: root,
    });
    expect(recalled.code).toBe(0);
    expect(stub.requests.slice(before)).toEqual([['automobile']]);
    expect(recalled.stdout).toMatch(/^embeddings \(stub-1\): words and meaning fused \(rrf k=60\)\n/);
    expect(recalled.stdout).toMatch(/^1\. \[\[garage#Garage\]\]/m);
    // A section with nothing in common (cosine 0) is not brought in by meaning.
    expect(recalled.stdout).not.toContain('[[food');
    expect(recalled.stdout).toMatch(/· semantic 1\b/);
    expect(recalled.stdout).toMatch(/close in meaning/);
  });

  it('says embeddings are off when --embed is asked of a vault without them', async () => {
    const root = await makeVault({ 'a.md': '# A\ntext\n' });
    const result = await mem(['index', '--embed'], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/embeddings are off/);
  });
});
