// The layer rule of DESIGN.md §3, checked on every `npm test`: imports between the folders of
// src/ point one way down LAYERS, type-only imports included, and no two files import each other
// through any chain; serve/ and cli/ reach the rest only through src/index.ts (and core/). dependency-cruiser 18 needs Node 22 and reads TypeScript through its JS API,
// which TypeScript 7 no longer has; the rule is small enough to check here directly.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lower first: a folder may import its own files and the folders above it in this list. */
export const LAYERS = [
  'core',
  'time',
  'vault',
  'indexing',
  'recall',
  'compile',
  'git',
  'write',
  'reflect',
  'api',
  'index.ts',
  'serve',
  'cli',
];

/**
 * The edge: these reach the layers below only through the public API in index.ts, and core/
 * (errors, types, the vault's file names and its server record: nothing but Node's own modules),
 * so the CLI can start without loading the library.
 */
const EDGE = new Set(['serve', 'cli']);

const IMPORT =
  /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level part of src/ a file belongs to: its first folder, or the file name at the top. */
function layerOf(src, file) {
  return relative(src, file).split(/[\\/]/)[0];
}

/** `{ file, imports }` for every .ts file below `src`, imports resolved to .ts paths. */
export function readImports(src) {
  return listFiles(src).map((file) => {
    const text = readFileSync(file, 'utf8');
    const imports = [...text.matchAll(IMPORT)].map((m) =>
      resolve(dirname(file), m[1] ?? m[2]).replace(/\.js$/, '.ts'),
    );
    return { file, imports };
  });
}

export function checkLayers(src) {
  const problems = [];
  const graph = new Map(readImports(src).map(({ file, imports }) => [file, imports]));
  for (const [file, imports] of graph) {
    const from = layerOf(src, file);
    const rank = LAYERS.indexOf(from);
    if (rank < 0)
      problems.push(`${relative(src, file)}: src/${from} is not a layer in scripts/check-layers.mjs`);
    for (const target of imports) {
      const to = layerOf(src, target);
      if (LAYERS.indexOf(to) > rank) {
        problems.push(
          `${relative(src, file)} imports ${relative(src, target)}: ${from}/ may not import ${to}/`,
        );
      } else if (EDGE.has(from) && to !== from && to !== 'index.ts' && to !== 'core' && !EDGE.has(to)) {
        problems.push(
          `${relative(src, file)} imports ${relative(src, target)}: ${from}/ uses only src/index.ts and core/`,
        );
      }
    }
  }
  // Cycles between files (Tarjan's strongly connected components).
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(relative(src, w));
    } while (w !== v);
    if (component.length > 1) problems.push(`import cycle: ${component.sort().join(' → ')}`);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));
  const problems = checkLayers(src);
  for (const problem of problems) console.error(`layers: ${problem}`);
  if (problems.length > 0) {
    console.error(`layers: ${problems.length} problem(s); the order is ${LAYERS.join(' → ')} (DESIGN.md §3)`);
    process.exit(1);
  }
  console.log(`layers: ${LAYERS.join(' → ')}: no back edge, no cycle`);
}
