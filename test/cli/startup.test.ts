import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupVaults, copyExampleVault, EXAMPLE_VAULT, REPO_ROOT } from '../helpers/make-vault.js';

// These run the built CLI (`npm test` builds first) with a module hook that lists every file it
// loads, so "the help does not load the index" is a fact checked, not a timing. The CLI is one
// bundle in chunks; dist/cli-chunks.json (written by the build) says which sources each chunk holds.
let dir: string;
let hook: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mem-startup-'));
  const log = join(dir, 'loaded.txt');
  const hooks = join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
  );
  hook = join(dir, 'register.mjs');
  await writeFile(
    hook,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await cleanupVaults();
});

async function loadedBy(args: string[]): Promise<{ status: number | null; stdout: string; loaded: string }> {
  const log = join(dir, 'loaded.txt');
  await writeFile(log, '');
  const run = spawnSync(process.execPath, ['--import', hook, join(REPO_ROOT, 'dist/cli/main.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] },
  });
  return { status: run.status, stdout: run.stdout, loaded: await sourcesOf(await readFile(log, 'utf8')) };
}

/** The sources inside the chunks a run loaded, one per line, e.g. `node_modules/minisearch/dist/es/index.js`. */
async function sourcesOf(loadedUrls: string): Promise<string> {
  const chunks = JSON.parse(await readFile(join(REPO_ROOT, 'dist/cli-chunks.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  const cliDir = pathToFileURL(join(REPO_ROOT, 'dist/cli/')).href;
  return loadedUrls
    .split('\n')
    .flatMap((url) => {
      if (url.startsWith(cliDir)) return chunks[url.slice(cliDir.length)] ?? [];
      // Outside the bundle: a package required at run time (the tokenizer's tables).
      const i = url.indexOf('/node_modules/');
      return i < 0 ? [] : [url.slice(i + 1)];
    })
    .join('\n');
}

const HEAVY = [
  'minisearch',
  'openai',
  '@modelcontextprotocol',
  'remark-parse',
  'chokidar',
  'gpt-tokenizer',
  'zod',
  'diff',
  // The CLI checks --now with time/parse-input-time.ts, which reads text without a time-zone library.
  'temporal-polyfill',
];

describe('a fast start', () => {
  it('mem --version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = await loadedBy(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${pkg.version}\n`);
  });

  it('mem --help loads none of the library: no index, parser, model client or MCP SDK', async () => {
    const run = await loadedBy(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('recall');
    expect(HEAVY.filter((name) => run.loaded.includes(`node_modules/${name}/`))).toEqual([]);
  });

  it('mem recall loads the index but not the model client, the MCP SDK or the watcher', async () => {
    const run = await loadedBy([
      '--vault',
      EXAMPLE_VAULT,
      'recall',
      '上海',
      '--now',
      '2026-11-30T10:00:00+08:00',
    ]);
    expect(run.status).toBe(0);
    expect(run.loaded).toContain('node_modules/minisearch/');
    expect(
      ['openai', '@modelcontextprotocol', 'chokidar', 'diff'].filter((name) =>
        run.loaded.includes(`node_modules/${name}/`),
      ),
    ).toEqual([]);
  });

  it('mem recall answered by the daemon loads none of the library', async () => {
    const root = await copyExampleVault();
    await writeFile(
      join(root, 'mem.config.json'),
      JSON.stringify({ timezone: 'Asia/Shanghai', daemon: { minNotes: 10 } }),
    );
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), '--vault', root, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] },
      });
    expect(cli(['daemon', 'start']).status).toBe(0);
    try {
      const run = await loadedBy(['--vault', root, 'recall', '上海', '--now', '2026-11-30T10:00:00+08:00']);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('Shanghai');
      expect(HEAVY.filter((name) => run.loaded.includes(`node_modules/${name}/`))).toEqual([]);
      expect(run.loaded).not.toContain('src/api/open-vault.ts');
    } finally {
      expect(cli(['daemon', 'stop']).stdout).toContain('stopped the daemon');
    }
  });
});
