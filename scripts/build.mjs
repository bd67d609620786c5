#!/usr/bin/env node
// Builds dist/ from a clean slate: the library (tsc: one module per source file, with types) and
// the command line (esbuild: one bundle). A `mem` call is a short process, and loading some 340
// separate ES modules cost it more CPU than the work it was asked for; the bundle is parsed once,
// and what a command does not use (the model client, the MCP SDK, the watcher, the servers) stays
// in chunks that load only when that command runs.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const CLI_OUT = join(DIST, 'cli');

// Files of an older layout must not linger in dist/ (they would be published).
rmSync(DIST, { recursive: true, force: true });

execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: ROOT,
  stdio: 'inherit',
});

// tsc also emitted dist/cli/ module by module; the bundle replaces it.
rmSync(CLI_OUT, { recursive: true, force: true });

const result = await build({
  absWorkingDir: ROOT,
  // The read worker of `mem serve --workers` is a file of its own, found beside its chunk by URL.
  entryPoints: { main: 'src/cli/main.ts', 'read-worker': 'src/serve/read-worker.ts' },
  outdir: CLI_OUT,
  // Chunks stay beside main.js: code that finds package.json or templates/ by `import.meta.url`
  // (core/version.ts, core/templates-dir.ts) then sees the same depth as in src/.
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Names are kept so that a stack trace still says which function failed.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  // The local embedding model's runtime is an optional peer dependency with native binaries (ONNX
  // Runtime): imported from where the user installed it, never bundled. So is usearch (the vector
  // index, an optional dependency): its loader finds its native binary from its own module's path,
  // which a bundled copy would not have.
  external: ['@huggingface/transformers', 'usearch'],
  // jsonc-parser's `main` is a UMD build whose modules require() each other through a parameter,
  // which a bundler cannot follow (the bundle failed at run time: "Cannot find module
  // './impl/format'"); its ES module build is the same code.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __memCreateRequire } from 'node:module'; const require = __memCreateRequire(import.meta.url);",
  },
});

// Which sources each output file holds: the start-up test reads it to check what a command loads.
const chunks = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => [relative(CLI_OUT, join(ROOT, file)), Object.keys(output.inputs)]),
);
writeFileSync(join(DIST, 'cli-chunks.json'), `${JSON.stringify(chunks, null, 1)}\n`);

// The token counters' rank tables (compile/token-ranks.ts): made once here from gpt-tokenizer's
// ranks, so that no process parses those (50-70 MiB of memory for o200k) to count a token.
const { writeRankTables } = await import(pathToFileURL(join(DIST, 'compile', 'token-ranks.js')).href);
writeRankTables(join(DIST, 'token-ranks'));
