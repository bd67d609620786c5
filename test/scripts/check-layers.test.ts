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
      'cli/x.ts imports recall/recall.ts: cli/ uses only src/index.ts, src/internal.ts and core/',
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
      'cli/x.ts imports time/zoned-date.ts: cli/ uses only src/index.ts, src/internal.ts and core/',
      'time/parse-input-time.ts imports time/zoned-date.ts: the edges import it directly, so it may import only core/ and the other modules the edges import',
    ]);
  });

  it("lets the edges import the verbs' input schemas of api/inputs/, which may import only core/ and the input rules", async () => {
    const src = await tree({
      'cli/x.ts': "import { rememberInput } from '../api/inputs/remember.js';\n",
      'serve/y.ts': "import { recallInput } from '../api/inputs/recall.js';\n",
      'api/inputs/remember.ts':
        "import { moment } from './fields.js';\nimport { E } from '../../core/errors.js';\nexport const rememberInput = moment;\n",
      'api/inputs/fields.ts':
        "import { isMomentText } from '../../time/parse-input-time.js';\nexport const moment = isMomentText;\n",
      'api/inputs/recall.ts':
        "import { Vault } from '../open-vault.js';\nexport const recallInput = Vault;\n",
      'api/open-vault.ts': 'export class Vault {}\n',
      'time/parse-input-time.ts': 'export const isMomentText = 1;\n',
      'core/errors.ts': 'export const E = 1;\n',
    });
    expect(checkLayers(src)).toEqual([
      'api/inputs/recall.ts imports api/open-vault.ts: the edges import it directly, so it may import only core/ and the other modules the edges import',
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

  it('follows a type query, in a type alias, a typeof and a generic argument', async () => {
    const src = await tree({
      'core/a.ts': "export type V = import('../api/open-vault.js').Vault;\n",
      'core/b.ts': "export let mod: typeof import('../api/other.js');\n",
      'core/c.ts': "export const list: Array<import('../api/third.js').T> = [];\n",
      'cli/x.ts': "export type R = import('../recall/recall.js').Hit;\n",
      'api/open-vault.ts': 'export class Vault {}\n',
      'api/other.ts': 'export const y = 1;\n',
      'api/third.ts': 'export type T = 1;\n',
      'recall/recall.ts': 'export type Hit = 1;\n',
    });
    expect(checkLayers(src)).toEqual([
      'cli/x.ts imports recall/recall.ts: cli/ uses only src/index.ts, src/internal.ts and core/',
      'core/a.ts imports api/open-vault.ts: core/ may not import api/',
      'core/b.ts imports api/other.ts: core/ may not import api/',
      'core/c.ts imports api/third.ts: core/ may not import api/',
    ]);
  });

  it('lets the edges import internal.ts, which re-exports index.ts, and refuses index.ts importing it', async () => {
    const src = await tree({
      'cli/x.ts': "import { merge } from '../internal.js';\n",
      'serve/y.ts': "import type { Vault } from '../internal.js';\nimport { open } from '../index.js';\n",
      'internal.ts': "export * from './index.js';\nexport { merge } from './write/merge.js';\n",
      'index.ts':
        "export { open, type Vault } from './api/open-vault.js';\nexport type { M } from './internal.js';\n",
      'api/open-vault.ts': 'export class Vault {}\nexport const open = 1;\n',
      'write/merge.ts': 'export const merge = 1;\nexport type M = 1;\n',
    });
    expect(checkLayers(src)).toEqual([
      'index.ts imports internal.ts: index.ts/ may not import internal.ts/',
      'import cycle: index.ts → internal.ts',
    ]);
  });

  it('passes type queries that point down the layers or at index.ts from an edge', async () => {
    const src = await tree({
      'api/open-vault.ts': "export type C = import('../core/config.js').Config;\n",
      'cli/library.ts': "export type L = typeof import('../index.js');\n",
      'core/config.ts': 'export type Config = 1;\n',
      'index.ts': "export type { C } from './api/open-vault.js';\n",
    });
    expect(checkLayers(src)).toEqual([]);
  });

  it('follows a module loaded by new URL(…, import.meta.url) and import.meta.resolve', async () => {
    const src = await tree({
      'api/pool.ts':
        "import { Worker } from 'node:worker_threads';\nexport const w = () => new Worker(new URL('../serve/read-worker.js', import.meta.url));\n",
      'core/where.ts': "export const at = import.meta.resolve('../write/x.js');\n",
      'cli/spawn.ts': "export const entry = new URL('../recall/run.js', import.meta.url);\n",
      'serve/read-worker.ts': 'export {};\n',
      'write/x.ts': 'export {};\n',
      'recall/run.ts': 'export {};\n',
    });
    expect(checkLayers(src)).toEqual([
      'api/pool.ts loads by URL serve/read-worker.ts: api/ may not import serve/',
      'cli/spawn.ts loads by URL recall/run.ts: cli/ uses only src/index.ts, src/internal.ts and core/',
      'core/where.ts loads by URL write/x.ts: core/ may not import write/',
    ]);
  });

  it('passes a worker of its own layer, a data file by URL and a worker that imports its pool', async () => {
    const src = await tree({
      'serve/read-pool.ts':
        "import { Worker } from 'node:worker_threads';\nexport type Msg = 1;\nexport const w = () => new Worker(new URL('./read-worker.js', import.meta.url));\n",
      // The worker runs in its own thread with its own module graph: importing the pool's message
      // types is no cycle.
      'serve/read-worker.ts': "import type { Msg } from './read-pool.js';\nexport type M = Msg;\n",
      'core/version.ts': "export const pkg = new URL('../../package.json', import.meta.url);\n",
      'core/templates.ts': "export const dir = new URL('../../templates/', import.meta.url);\n",
      'vault/data.ts': "export const words = new URL('../api/words.txt', import.meta.url);\n",
      'api/words.txt': 'a\n',
    });
    expect(checkLayers(src)).toEqual([]);
  });

  it('refuses a URL whose module is named at run time', async () => {
    const src = await tree({
      'serve/pool.ts':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
        'export const w = (name: string) => new URL(`./${name}.js`, import.meta.url);\n',
    });
    expect(checkLayers(src)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test
      'serve/pool.ts: new URL(`./${name}.js`, import.meta.url) names its module at run time; the layer rule cannot follow it',
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

  it('refuses a folder of more than 20 files, and counts a subfolder apart', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 21; i++) files[`indexing/file-${i}.ts`] = 'export const x = 1;\n';
    for (let i = 0; i < 20; i++) files[`vault/markdown/file-${i}.ts`] = 'export const x = 1;\n';
    files['vault/read.ts'] = 'export const y = 1;\n';
    const src = await tree(files);
    expect(checkLayers(src)).toEqual([
      'indexing/ holds 21 files: at most 20, the rest in a subfolder per engine',
    ]);
  });

  it('stops on a file it cannot parse rather than passing it unread', async () => {
    const src = await tree({ 'core/broken.ts': 'import { from "../api/x.js";\n' });
    expect(() => checkLayers(src)).toThrow(/core\/broken\.ts: cannot be parsed/);
  });
});
