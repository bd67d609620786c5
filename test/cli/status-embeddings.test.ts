// `mem status` shows the embeddings state (issue 32, item 5): on or off, provider and model, and
// whether the notes' vectors are cached, read from the config and the cache file's header alone.
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { stubVector } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const FILES = {
  'insights/tea.md': '# Tea\nOolong in the morning.\n',
  'insights/bees.md': '# Bees\nTwo hives on the roof.\n',
};

describe('mem status and embeddings', () => {
  it('says they are off, and how to turn them on', async () => {
    const root = await makeVault(FILES);
    const out = await mem(['--vault', root, 'status']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      'embeddings  off: recall ranks by words (mem config set embeddings.enabled true)\n',
    );
    expect(JSON.parse((await mem(['--vault', root, 'status', '--json'])).stdout).embeddings).toEqual({
      enabled: false,
      provider: 'openai',
      model: 'text-embedding-3-small',
    });
  });

  it('says which model, and whether the notes are embedded yet', async () => {
    const config = {
      timezone: 'UTC',
      embeddings: { enabled: true, baseURL: 'http://127.0.0.1:9/v1', model: 'stub-1' },
    };
    const root = await makeVault(FILES, { config });
    const before = await mem(['--vault', root, 'status']);
    expect(before.stdout).toContain(
      'embeddings  on: openai stub-1 at http://127.0.0.1:9/v1; no vectors cached yet (the first recall or compile embeds the notes)\n',
    );
    const vault = await openVault({
      path: root,
      embed: async (texts) => texts.map(stubVector),
    });
    await vault.recallAsync('tea');
    await vault.close();
    const after = await mem(['--vault', root, 'status', '--json']);
    expect(JSON.parse(after.stdout).embeddings).toMatchObject({
      enabled: true,
      model: 'stub-1',
      cache: { file: '.mem/embeddings-stub-1.vec', vectors: 2, dims: 64 },
    });
    expect((await mem(['--vault', root, 'status'])).stdout).toContain(
      'embeddings  on: openai stub-1 at http://127.0.0.1:9/v1; 2 vectors cached (64 dimensions, .mem/embeddings-stub-1.vec)\n',
    );
  });
});
