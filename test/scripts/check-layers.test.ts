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

  it('lets an edge import the input rules of time/ directly, as long as they import only core/', async () => {
    const src = await tree({
      'cli/x.ts':
        "import { isMomentText } from '../time/parse-input-time.js';\nimport { y } from '../time/zoned-date.js';\n",
      'time/parse-input-time.ts':
        "import { z } from './zoned-date.js';\nimport { E } from '../core/errors.js';\n",
      'time/zoned-date.ts': 'export const y = 1;\nexport const z = 2;\n',
      'core/errors.ts': 'export const E = 1;\n',
    });
    expect(checkLayers(src)).toEqual([
      'cli/x.ts imports time/zoned-date.ts: cli/ uses only src/index.ts and core/',
      'time/parse-input-time.ts imports time/zoned-date.ts: the edges import it directly, so it may import only core/',
    ]);
  });

  it('sees a side-effect import, a dynamic import in backticks, a re-export and an .mts file', async () => {
    const src = await tree({
      'core/a.ts': "import '../api/x.js';\n",
      'core/b.ts': 'export const load = () => import(`../api/y.js`);\n',
      'core/c.mts': "export * from '../api/z.mjs';\n",
      'core/d.ts': "export type { T } from '../api/x.js';\n",
      'api/x.ts': 'export type T = 1;\n',
      'api/y.ts': 'export {};\n',
      'api/z.mts': 'export {};\n',
    });
    expect(checkLayers(src)).toEqual([
      'core/a.ts imports api/x.ts: core/ may not import api/',
      'core/b.ts imports api/y.ts: core/ may not import api/',
      'core/c.mts imports api/z.mts: core/ may not import api/',
      'core/d.ts imports api/x.ts: core/ may not import api/',
    ]);
  });

  it('refuses a dynamic import whose module is named at run time', async () => {
    const src = await tree({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
      'cli/run.ts': 'export const run = (name: string) => import(`./commands/${name}.js`);\n',
    });
    expect(checkLayers(src)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
      'cli/run.ts: import(`./commands/${name}.js`) names its module at run time; the layer rule cannot follow it',
    ]);
  });

  it('stops on a file it cannot parse rather than passing it unread', async () => {
    const src = await tree({ 'core/broken.ts': 'import { from "../api/x.js";\n' });
    expect(() => checkLayers(src)).toThrow(/core\/broken\.ts: cannot be parsed/);
  });
});
