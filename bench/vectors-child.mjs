// One step of bench/vectors.mjs, in a fresh process so its time and memory are its own:
//   node vectors-child.mjs build <root> <float32|int8> <notes> <dims>   fill and save a cache
//   node vectors-child.mjs json <root> <notes> <dims>                    the old JSON cache, written as the old code would
//   node vectors-child.mjs load <root> <float32|int8>                    open the cache, memory after
//   node vectors-child.mjs query <root> <float32|int8> <queries> <k>     exact top-k, each query timed (wall, CPU)
//   node vectors-child.mjs json-load <root>                              the old loader (JSON.parse into arrays)
//   node vectors-child.mjs ann-build <root>                              build the ANN index over a saved int8 cache and save it
//   node vectors-child.mjs ann-open <root>                               load the cache, then its first top-k (checks and maps the index)
//   node vectors-child.mjs ann-query <root> <queries> <k>                top-k through the ANN index, each query timed
// Every step but the ann-* ones searches exactly (no index is built or used).
// Prints one JSON line. Vectors: 1–3 sections a note, random normal components, unit length.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { legacyVectorCacheFile, VectorCache } from '../dist/indexing/vectors/vector-cache.js';

const EXACT = { annMinVectors: Number.POSITIVE_INFINITY };

import { hashText } from '../dist/vault/write-note.js';
import { makeRandom } from './prng.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const MODEL = 'bench-384';

/** The section texts of `notes` notes (1–3 sections each, seeded). */
function sectionTexts(notes) {
  const random = makeRandom(25);
  const texts = [];
  for (let n = 0; n < notes; n++) {
    const sections = random.int(1, 3);
    for (let s = 0; s < sections; s++) texts.push(`note ${n} section ${s}`);
  }
  return texts;
}

/** A unit vector of `dims` normal components, the same for the same seed. */
function randomUnit(seed, dims) {
  const random = makeRandom(seed);
  const v = new Array(dims);
  let squares = 0;
  for (let j = 0; j < dims; j++) {
    const x = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
    v[j] = x;
    squares += x * x;
  }
  const norm = Math.sqrt(squares);
  for (let j = 0; j < dims; j++) v[j] /= norm;
  return v;
}

const memory = () => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external };
};

const [step, root = '', ...args] = process.argv.slice(2);
/** @type {any} */
const out = { step };
/** @type {(name: string | undefined) => 'float32' | 'int8'} */
const encodingOf = (name) => (name === 'float32' ? 'float32' : 'int8');

if (step === 'build') {
  const [name, notes, dims] = args;
  const encoding = encodingOf(name);
  const texts = sectionTexts(Number(notes));
  const index = new Map(texts.map((t, i) => [t, i]));
  const cache = await VectorCache.load(root, MODEL, { encoding, ...EXACT });
  const embed = async (batch) => batch.map((t) => randomUnit(1 + (index.get(t) ?? 0), Number(dims)));
  let start = performance.now();
  out.vectors = texts.length;
  out.embedded = await cache.fill(texts, embed, 8192);
  out.fillMs = performance.now() - start;
  start = performance.now();
  await cache.save(root);
  out.saveMs = performance.now() - start;
} else if (step === 'json') {
  // What the old VectorCache.save wrote for these vectors, {"model", "vectors": {hash: [numbers]}},
  // streamed: at 100k notes one JSON.stringify of it is past V8's longest string.
  const [notes, dims] = args;
  const texts = sectionTexts(Number(notes));
  const stream = createWriteStream(legacyVectorCacheFile(root, MODEL));
  const write = (text) =>
    stream.write(text) ? undefined : new Promise((resolve) => stream.once('drain', () => resolve(undefined)));
  await write(`{"model":${JSON.stringify(MODEL)},"vectors":{`);
  for (let i = 0; i < texts.length; i++)
    await write(`${i ? ',' : ''}"${hashText(texts[i])}":${JSON.stringify(randomUnit(1 + i, Number(dims)))}`);
  await write('}}');
  await new Promise((resolve, reject) =>
    stream.end(/** @param {unknown} error */ (error) => (error ? reject(error) : resolve(undefined))),
  );
  out.bytes = stream.bytesWritten;
} else if (step === 'load') {
  const encoding = encodingOf(args[0]);
  out.before = memory();
  const start = performance.now();
  const cache = await VectorCache.load(root, MODEL, { encoding, ...EXACT });
  out.loadMs = performance.now() - start;
  out.vectors = cache.size;
  out.after = memory();
} else if (step === 'query') {
  const [name, queries, k] = args;
  const encoding = encodingOf(name);
  const cache = await VectorCache.load(root, MODEL, { encoding, ...EXACT });
  const dims = cache.get('note 0 section 0')?.length ?? 0;
  out.times = [];
  out.cpuTimes = [];
  out.tops = [];
  for (let q = -5; q < Number(queries); q++) {
    const query = randomUnit(1_000_000_000 + q, dims);
    const cpu = process.cpuUsage();
    const start = performance.now();
    const top = cache.topK(query, Number(k));
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (q < 0) continue; // warmup
    out.times.push(ms);
    out.cpuTimes.push((used.user + used.system) / 1000);
    out.tops.push([...top.slots].map((slot) => cache.hashAt(slot).slice(0, 16)));
  }
} else if (step === 'ann-build') {
  const notices = [];
  const cache = await VectorCache.load(root, MODEL, { onNotice: (m) => notices.push(m) });
  const cpu = process.cpuUsage();
  const start = performance.now();
  await cache.save(root);
  out.buildMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  out.buildCpuMs = (used.user + used.system) / 1000;
  out.vectors = cache.size;
  out.notices = notices;
} else if (step === 'ann-open') {
  out.before = memory();
  let start = performance.now();
  const cache = await VectorCache.load(root, MODEL);
  out.loadMs = performance.now() - start;
  const query = randomUnit(999, cache.get('note 0 section 0')?.length ?? 0);
  start = performance.now();
  cache.topK(query, 10);
  out.firstQueryMs = performance.now() - start;
  start = performance.now();
  cache.topK(query, 10);
  out.secondQueryMs = performance.now() - start;
  out.vectors = cache.size;
  out.after = memory();
} else if (step === 'ann-query') {
  const [queries, k] = args;
  const cache = await VectorCache.load(root, MODEL);
  const dims = cache.get('note 0 section 0')?.length ?? 0;
  out.times = [];
  out.cpuTimes = [];
  out.tops = [];
  for (let q = -5; q < Number(queries); q++) {
    const query = randomUnit(1_000_000_000 + q, dims);
    const cpu = process.cpuUsage();
    const start = performance.now();
    const top = cache.topK(query, Number(k));
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (q < 0) continue; // warmup (the first also opens the index)
    out.times.push(ms);
    out.cpuTimes.push((used.user + used.system) / 1000);
    out.tops.push([...top.slots].map((slot) => cache.hashAt(slot).slice(0, 16)));
  }
} else if (step === 'json-load') {
  // The old VectorCache.load: the file as one string, JSON.parse, a Map of number arrays.
  out.before = memory();
  const start = performance.now();
  try {
    const data = JSON.parse(await readFile(legacyVectorCacheFile(root, MODEL), 'utf8'));
    const vectors = new Map();
    for (const [hash, vector] of Object.entries(data.vectors))
      if (Array.isArray(vector) && vector.every((x) => typeof x === 'number')) vectors.set(hash, vector);
    out.loadMs = performance.now() - start;
    out.vectors = vectors.size;
    out.after = memory();
  } catch (caught) {
    const error = /** @type {NodeJS.ErrnoException} */ (caught);
    out.error = `${error.code ?? error.name}: ${error.message}`;
  }
} else {
  throw new Error(`unknown step ${step} (${join('bench', 'vectors-child.mjs')})`);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
