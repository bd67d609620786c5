import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaFileOf } from '../../src/indexing/vectors/vector-ann.js';
import { ANN_MIN_VECTORS, vectorIndexFile } from '../../src/indexing/vectors/vector-cache.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';

// usearch must stay outside the CLI bundle (its loader finds its native binary from its own
// module's path): the built `mem` (dist/cli/main.js, `npm run build`) embeds a vault past the
// threshold in a real process, and the index it saves is usearch's.

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
beforeAll(async () => {
  stub = await startEmbedStub();
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

describe('the built CLI and usearch', () => {
  it('keeps usearch out of the bundle', async () => {
    const chunks = JSON.parse(await readFile(join(REPO_ROOT, 'dist/cli-chunks.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const inputs = Object.values(chunks).flat();
    expect(inputs.some((input) => input.includes('src/indexing/vectors/vector-ann.ts'))).toBe(true);
    expect(inputs.filter((input) => input.includes('usearch'))).toEqual([]);
  });

  it('builds, saves and then maps the index in real processes', async () => {
    const notes = 40;
    const perNote = Math.ceil((ANN_MIN_VECTORS + 400) / notes);
    const files: Record<string, string> = {};
    for (let n = 0; n < notes; n++) {
      let text = `# Note ${n}\n`;
      for (let s = 0; s < perNote; s++)
        text += `\n## Part ${s}\nword${n} thing${s} item${(n * 31 + s) % 997}\n`;
      files[`notes/n${n}.md`] = text;
    }
    const root = await makeVault(files, {
      config: { timezone: 'UTC', embeddings: { enabled: true, baseURL: stub.baseURL, model: 'stub-1' } },
    });
    const embedded = await memProcess(['index', '--embed', '--json'], { cwd: root });
    expect(embedded.stderr).toBe('');
    expect(embedded.code).toBe(0);
    const index = vectorIndexFile(root, 'stub-1');
    const meta = JSON.parse(await readFile(metaFileOf(index), 'utf8')) as { count: number; bytes: number };
    expect(meta.count).toBeGreaterThanOrEqual(ANN_MIN_VECTORS);
    expect((await stat(index)).size).toBe(meta.bytes);
    const before = await stat(index);

    const recalled = await memProcess(['recall', 'word7 thing3', '--now', '2026-11-30T10:00:00Z'], {
      cwd: root,
    });
    expect(recalled.stderr).toBe('');
    expect(recalled.code).toBe(0);
    expect(recalled.stdout).toMatch(/n7/);
    // In step with the vectors: mapped as it was, not rebuilt and saved again.
    expect((await stat(index)).mtimeMs).toBe(before.mtimeMs);
  }, 300_000);
});
