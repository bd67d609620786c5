// The layer rule of docs/architecture.md ("Layers"), checked on every `npm test`: imports between
// the folders of src/ point one way down LAYERS, type-only and side-effect imports included, and no
// two files import each other through any chain; serve/ and cli/ reach the rest only through
// src/index.ts (and core/). dependency-cruiser 18 needs Node 22 and reads TypeScript through its JS
// API, which TypeScript 7 no longer has; the rule is small enough to check here directly. Imports
// are read by a real parser (oxc, through rolldown, which vite brings): a regular expression missed
// side-effect imports, template-literal dynamic imports and .mts files. Two edges are no import
// statement and are found in the syntax tree: a type query (`import('../api/open-vault.js').Vault`,
// which ties the layers' types as an `import type` does) and a module loaded by URL
// (`new Worker(new URL('../serve/read-worker.js', import.meta.url))`, or `import.meta.resolve`),
// which runs that module as surely as an import.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'rolldown/utils';

/** Lower first: a folder may import its own files and the folders above it in this list. */
export const LAYERS = [
  'core',
  'time',
  'models',
  'vault',
  'indexing',
  'recall',
  'compile',
  'git',
  'write',
  'inspect',
  'reflect',
  'live',
  'api',
  'index.ts',
  'internal.ts',
  'serve',
  'cli',
];

/**
 * The edge: these reach the layers below only through the entries, the public API in index.ts and
 * internal.ts (index.ts and what only the edges need; a module the package does not export), and
 * core/ (errors, types, the vault's file names and its server record: nothing but Node's own
 * modules), so the CLI can start without loading the library.
 */
const EDGE = new Set(['serve', 'cli']);
const ENTRIES = new Set(['index.ts', 'internal.ts']);

/**
 * The modules below index.ts an edge may import directly: the input rules (what text is a moment or
 * a day) and the verbs' input schemas (api/inputs/: one zod schema per verb, which the CLI, HTTP and
 * MCP all check with), so the CLI checks its flags before the library loads. They must import
 * nothing but core/ and each other, or the CLI would load the library with them.
 */
const EDGE_IMPORT_FILES = new Set(['time/parse-input-time.ts']);
const EDGE_IMPORT_FOLDERS = ['api/inputs/'];
const isEdgeImport = (path) =>
  EDGE_IMPORT_FILES.has(path) || EDGE_IMPORT_FOLDERS.some((folder) => path.startsWith(folder));

/** TypeScript sources, whatever their module flavour. */
const SOURCE = /\.(?:ts|mts|cts|tsx)$/;

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : SOURCE.test(name) ? [path] : [];
  });
}

/** The top-level part of src/ a file belongs to: its first folder, or the file name at the top. */
function layerOf(src, file) {
  return relative(src, file).split(/[\\/]/)[0];
}

/** A file's path below src/, with forward slashes. */
function pathIn(src, file) {
  return relative(src, file).split(/[\\/]/).join('/');
}

/** The source file a relative specifier names: `./x.js` is `./x.ts`, `./x.mjs` is `./x.mts`. */
function sourceOf(file, specifier) {
  return resolve(dirname(file), specifier).replace(/\.([mc]?)js$/, '.$1ts');
}

/** The text of a plain string or a backtick string without substitutions, else undefined. */
function plainString(raw) {
  const plain = /^(['"])([^'"\\]*)\1$/.exec(raw) ?? /^`([^`$\\]*)`$/.exec(raw);
  return plain ? (plain[2] ?? plain[1]) : undefined;
}

/** Every node of an ESTree tree (oxc's), depth first. */
function* walk(node) {
  if (Array.isArray(node)) {
    for (const item of node) yield* walk(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (typeof node.type === 'string') yield node;
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'type' && value !== null && typeof value === 'object') yield* walk(value);
  }
}

/** `import.meta.url` (or `import.meta`'s other fields when `field` is given). */
function isImportMeta(node, field = 'url') {
  return (
    node?.type === 'MemberExpression' &&
    !node.computed &&
    node.property?.name === field &&
    node.object?.type === 'MetaProperty' &&
    node.object.meta?.name === 'import' &&
    node.object.property?.name === 'meta'
  );
}

/**
 * The module specifiers the import statements do not show: type queries (`typeof import('…')`,
 * `import('…').T`) in `types`, and `new URL('…', import.meta.url)` (a worker, or any module loaded
 * by URL) and `import.meta.resolve('…')` in `urls`. `unchecked` gets the text of a URL or resolve
 * whose module is named at run time.
 */
function treeSpecifiers(program, text, unchecked) {
  const types = [];
  const urls = [];
  for (const node of walk(program)) {
    if (node.type === 'TSImportType') {
      const source = node.source ?? node.argument?.literal ?? node.argument;
      if (typeof source?.value === 'string') types.push(source.value);
      continue;
    }
    const byUrl =
      node.type === 'NewExpression' &&
      node.callee?.type === 'Identifier' &&
      node.callee.name === 'URL' &&
      node.arguments?.length === 2 &&
      isImportMeta(node.arguments[1]);
    const byResolve =
      node.type === 'CallExpression' && isImportMeta(node.callee, 'resolve') && node.arguments?.length >= 1;
    if (!byUrl && !byResolve) continue;
    const raw = text.slice(node.arguments[0].start, node.arguments[0].end);
    const specifier = plainString(raw);
    if (specifier !== undefined) urls.push(specifier);
    else unchecked.push(byUrl ? `new URL(${raw}, import.meta.url)` : `import.meta.resolve(${raw})`);
  }
  return { types, urls };
}

/** A module's source (not a data file such as templates/ or package.json a URL may also name). */
const MODULE = /\.(?:[mc]?js|ts|mts|cts|tsx)$/;

/**
 * `{ file, imports, byUrl, unchecked }` for every TypeScript file below `src`: relative imports
 * (static, type-only, side-effect, re-exports, dynamic and type queries) and the modules it loads by
 * URL, resolved to source paths, and the dynamic imports and URLs whose specifier is not a plain
 * string, which no checker can follow. A URL that names a file outside `src` (the package's
 * templates, its package.json, the built CLI) is data, not an edge between layers.
 */
export function readImports(src) {
  return listFiles(src).map((file) => {
    const text = readFileSync(file, 'utf8');
    const lang = file.endsWith('x') ? 'tsx' : 'ts';
    const { program, module, errors } = parseSync(file, text, { lang, sourceType: 'module' });
    if (errors.length > 0) throw new Error(`${file}: cannot be parsed: ${errors[0].message}`);
    const specifiers = [
      ...module.staticImports.map((i) => i.moduleRequest.value),
      ...module.staticExports.flatMap((e) => e.entries.map((entry) => entry.moduleRequest?.value)),
    ];
    const unchecked = [];
    for (const { moduleRequest } of module.dynamicImports) {
      const raw = text.slice(moduleRequest.start, moduleRequest.end);
      const specifier = plainString(raw);
      if (specifier === undefined) unchecked.push(`import(${raw})`);
      else specifiers.push(specifier);
    }
    const { types, urls } = treeSpecifiers(program, text, unchecked);
    const relativeOnly = (specifier) => specifier?.startsWith('.');
    const byUrl = urls
      .filter((specifier) => relativeOnly(specifier) && MODULE.test(specifier))
      .map((specifier) => sourceOf(file, specifier))
      .filter((path) => !relative(src, path).startsWith('..'));
    const imports = [
      ...new Set([...specifiers, ...types].filter(relativeOnly).map((s) => sourceOf(file, s))),
    ];
    return { file, imports, byUrl: [...new Set(byUrl)], unchecked };
  });
}

/** "One folder per stage, one subfolder per engine": a folder past this many files wants a subfolder. */
export const MAX_FILES_PER_FOLDER = 20;

/** The folders below `src` (itself included) holding more than MAX_FILES_PER_FOLDER source files directly. */
function crowdedFolders(src) {
  const byFolder = new Map();
  for (const file of listFiles(src)) {
    const folder = pathIn(src, dirname(file)) || '.';
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
  }
  return [...byFolder]
    .filter(([, count]) => count > MAX_FILES_PER_FOLDER)
    .map(
      ([folder, count]) =>
        `${folder}/ holds ${count} files: at most ${MAX_FILES_PER_FOLDER}, the rest in a subfolder per engine`,
    );
}

export function checkLayers(src) {
  const problems = crowdedFolders(src);
  const read = readImports(src);
  const graph = new Map(read.map(({ file, imports }) => [file, imports]));
  for (const { file, unchecked } of read) {
    for (const raw of unchecked)
      problems.push(
        `${relative(src, file)}: ${raw} names its module at run time; the layer rule cannot follow it`,
      );
  }
  for (const { file, imports, byUrl } of read) {
    const from = layerOf(src, file);
    const rank = LAYERS.indexOf(from);
    if (rank < 0)
      problems.push(`${relative(src, file)}: src/${from} is not a layer in scripts/check-layers.mjs`);
    const edges = [
      ...imports.map((target) => [target, 'imports']),
      ...byUrl.map((target) => [target, 'loads by URL']),
    ];
    for (const [target, how] of edges) {
      const to = layerOf(src, target);
      if (LAYERS.indexOf(to) > rank) {
        problems.push(
          `${relative(src, file)} ${how} ${relative(src, target)}: ${from}/ may not import ${to}/`,
        );
      } else if (isEdgeImport(pathIn(src, file)) && to !== 'core' && !isEdgeImport(pathIn(src, target))) {
        problems.push(
          `${relative(src, file)} ${how} ${relative(src, target)}: the edges import it directly, so it may import only core/ and the other modules the edges import`,
        );
      } else if (
        EDGE.has(from) &&
        to !== from &&
        !ENTRIES.has(to) &&
        to !== 'core' &&
        !EDGE.has(to) &&
        !isEdgeImport(pathIn(src, target))
      ) {
        problems.push(
          `${relative(src, file)} ${how} ${relative(src, target)}: ${from}/ uses only src/index.ts, src/internal.ts and core/`,
        );
      }
    }
  }
  // Cycles between files (Tarjan's strongly connected components), through imports only: a module
  // loaded by URL is the entry of another thread or process, evaluated in a module graph of its own,
  // so a worker that imports its pool's message types (serve/read-worker.ts) or a CLI that starts
  // itself as a daemon (cli/start-daemon.ts) makes no loop a reader or the loader must untangle.
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
    console.error(
      `layers: ${problems.length} problem(s); the order is ${LAYERS.join(' → ')} (docs/architecture.md)`,
    );
    process.exit(1);
  }
  console.log(`layers: ${LAYERS.join(' → ')}: no back edge, no cycle`);
}
