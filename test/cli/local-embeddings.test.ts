// `mem index --embed` and `mem recall` with `embeddings.provider: "local"`, end to end on a temp
// vault and the tiny self-built ONNX model (test/helpers/tiny-onnx.ts), never on the network.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem, memProcess } from '../helpers/run-cli.js';
import { tinyModel, writeTinyModel } from '../helpers/tiny-onnx.js';

const dirs: string[] = [];
afterAll(async () => {
  await cleanupVaults();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A table with meaning: the words of one topic share a dimension (knee, ligament, physio and
 * their Chinese), so a question and its evidence are close with no word in common.
 */
const TOPICS: Record<string, string[]> = {
  health: ['knee', 'ligament', 'physio', 'healing', '膝', '盖', '韧', '带'],
  food: ['noodles', 'dinner', 'spicy', '面', '条'],
};
const WORDS = Object.values(TOPICS).flat();
const DIM = 2 + WORDS.length + 8;
const meaningful = tinyModel(WORDS, (token, id) => {
  const row = new Array<number>(DIM).fill(0);
  const topic = Object.keys(TOPICS).findIndex((t) => TOPICS[t]?.includes(token));
  if (topic >= 0) row[topic] = 3;
  row[2 + id] = token === '[PAD]' ? 50 : 1;
  return row;
});

const vaultConfig = (model: string) => ({
  timezone: 'UTC',
  embeddings: { enabled: true, provider: 'local', model },
});

async function modelCache(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-models-'));
  dirs.push(dir);
  return dir;
}

describe('embeddings.provider local from the command line', () => {
  it('mem recall finds a note by meaning through the local model, with no word in common', async () => {
    const cache = await modelCache();
    await writeTinyModel(cache, 'test/tiny-cli', meaningful);
    const root = await makeVault(
      {
        'episodes/2026-11-20.md': '# 2026-11-20\nThe physio says the ligament is healing well.\n',
        'episodes/2026-11-21.md': '# 2026-11-21\nSpicy noodles for dinner.\n',
        'episodes/2026-11-22.md': '# 2026-11-22\n韧带在恢复。\n',
      },
      { config: vaultConfig('test/tiny-cli') },
    );
    const env = { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1' };
    const indexed = await mem(['index', '--embed', '--json'], { cwd: root, env });
    expect(indexed.stderr).toBe('');
    expect(indexed.code).toBe(0);
    const stats = JSON.parse(indexed.stdout) as { sections: number; embedded: number };
    expect(stats.embedded).toBe(stats.sections);
    expect(stats.sections).toBeGreaterThanOrEqual(3);

    for (const query of ['knee', '膝盖']) {
      const recalled = await mem(['recall', query, '--explain', '--now', '2026-11-30T10:00:00Z'], {
        cwd: root,
        env,
      });
      expect(recalled.code).toBe(0);
      expect(recalled.stderr).toBe('');
      // Neither note holds the query's words: the two health notes come first, by meaning.
      const top = [1, 2].map((n) => new RegExp(`^${n}\\. \\[\\[(\\S+?)#`, 'm').exec(recalled.stdout)?.[1]);
      expect(top.sort()).toEqual(['2026-11-20', '2026-11-22']);
      expect(recalled.stdout).toMatch(/semantic/);
    }
  });

  it('the built command loads @huggingface/transformers from node_modules (not bundled) and embeds', async () => {
    const cache = await modelCache();
    await writeTinyModel(cache, 'test/tiny-process', meaningful);
    const root = await makeVault(
      { 'a.md': '# A\nThe physio says the ligament is healing.\n', 'b.md': '# B\nSpicy noodles.\n' },
      { config: vaultConfig('test/tiny-process') },
    );
    const env = { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1', MEM_NO_DAEMON: '1' };
    const indexed = await memProcess(['index', '--embed', '--json'], { cwd: root, env });
    expect(indexed.stderr).toBe('');
    expect(indexed.code).toBe(0);
    expect(JSON.parse(indexed.stdout)).toMatchObject({ sections: 2, embedded: 2 });
    const recalled = await memProcess(['recall', 'knee', '--now', '2026-11-30T10:00:00Z'], {
      cwd: root,
      env,
    });
    expect(recalled.code).toBe(0);
    expect(recalled.stdout).toMatch(/^1\. \[\[a#A\]\]/);
  });

  it('offline with the model missing: a clear message, no stack trace, and mem index --embed fails', async () => {
    const cache = await modelCache();
    const root = await makeVault({ 'a.md': '# A\nknee\n' }, { config: vaultConfig('test/tiny-absent') });
    // The built command (dist/cli/main.js), a real process: its exit code and all it writes.
    const result = await memProcess(['index', '--embed'], {
      cwd: root,
      env: { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1', MEM_NO_DAEMON: '1' },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the local embedding model "test/tiny-absent" is not in');
    expect(result.stderr).toContain(cache);
    expect(result.stderr).toContain('onnx/model_quantized.onnx');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');

    // recall stays lexical and says why once, exit 0.
    const recalled = await mem(['recall', 'knee'], {
      cwd: root,
      env: { MEM_MODEL_CACHE: cache, HF_HUB_OFFLINE: '1' },
    });
    expect(recalled.code).toBe(0);
    expect(recalled.stdout).toContain('[[a');
    expect(recalled.stderr).toMatch(/is not in .*; recall and compile rank by words only for now\n$/);
  });
});
