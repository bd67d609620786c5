import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { checkLayers } from '../../scripts/check-layers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let dir: string;

async function tree(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'mem-layers-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the layer rule (scripts/check-layers.mjs)', () => {
  it('passes on src/ as it is', () => {
    expect(checkLayers(join(here, '..', '..', 'src'))).toEqual([]);
  });

  it('refuses a back edge, a type-only one included', async () => {
    const src = await tree({
      'core/types.ts': "import type { Vault } from '../api/open-vault.js';\nexport type X = Vault;\n",
      'api/open-vault.ts': "import type { X } from '../core/types.js';\nexport class Vault {}\n",
    });
    expect(checkLayers(src)).toEqual([
      'core/types.ts imports api/open-vault.ts: core/ may not import api/',
      'import cycle: api/open-vault.ts → core/types.ts',
    ]);
  });

  it('refuses a cycle inside one folder and an edge module reaching past index.ts', async () => {
    const src = await tree({
      'compile/a.ts': "export { b } from './b.js';\n",
      'compile/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'cli/x.ts': "import { recall } from '../recall/recall.js';\n",
      'recall/recall.ts': 'export const recall = 1;\n',
    });
    expect(checkLayers(src)).toEqual([
      'cli/x.ts imports recall/recall.ts: cli/ uses only src/index.ts and core/',
      'import cycle: compile/a.ts → compile/b.ts',
    ]);
  });
});
