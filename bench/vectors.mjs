// The vector cache at scale (issue 25): `node bench/run.mjs --only vectors` (after `npm run build`),
// or `node bench/vectors.mjs [--notes 10000,100000] [--queries 250]`. Random unit vectors of 384
// dimensions, 1–3 sections a note (no model is needed to measure storage and search). For Float32,
// int8 and the old JSON file: the file's size, the open (load) time and the memory after it, each
// in a fresh process; for the binary encodings, exact top-10 query times and how often int8's
// top 10 are Float32's. From 10k vectors, the ANN index (usearch HNSW) over the int8 cache: its
// build time and file size, the first top-k of a fresh process (checks and memory-maps the index)
// and the memory after it, top-10 query times, and how many of exact search's top 10 it finds.
// `--ann-only` skips Float32 and JSON (the index is built once per size, then reused).
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureNode } from './measure-process.mjs';
import { median, mib, round, summarize } from './stats.mjs';

const CHILD = fileURLToPath(new URL('./vectors-child.mjs', import.meta.url));
const ENCODINGS = ['float32', 'int8'];
/** Sizes (vectors) from which the ANN index is measured too */
const ANN_FROM_VECTORS = 10_000;
const FILES = {
  float32: 'embeddings-bench-384.vec',
  int8: 'embeddings-bench-384.vec',
  json: 'embeddings-bench-384.json',
};

async function child(args) {
  const measured = await measureNode(CHILD, args.map(String));
  return { ...JSON.parse(measured.stdout), cpuMs: measured.cpuMs, peakRssBytes: measured.peakRssBytes };
}

/** Median of `runs` fresh-process loads: time, and memory after the load (after a GC). */
async function loads(dir, step, encoding, runs) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await child([step, dir, ...(encoding ? [encoding] : [])]));
  if (all[0].error) return { error: all[0].error };
  const pick = (f) => median(all.map(f));
  return {
    vectors: all[0].vectors,
    loadMs: round(pick((r) => r.loadMs)),
    rssAfterMiB: mib(pick((r) => r.after.rss)),
    heapUsedAfterMiB: mib(pick((r) => r.after.heapUsed)),
    arrayBuffersAfterMiB: mib(pick((r) => r.after.arrayBuffers)),
    rssAddedMiB: mib(pick((r) => r.after.rss - r.before.rss)),
    peakRssMiB: mib(pick((r) => r.peakRssBytes)),
    runs,
  };
}

/** The ANN index over the int8 cache in `dir`, whose exact top-k were `exactTops`. */
async function annFigures(dir, { queries, k, runs, log }, exactTops) {
  const built = await child(['ann-build', dir]);
  if (built.notices.length > 0) return { error: built.notices.join('; ') };
  const bytes = (await stat(join(dir, '.mem', 'embeddings-bench-384.usearch'))).size;
  log(
    `vectors ann: built in ${round(built.buildMs)} ms (CPU ${round(built.buildCpuMs)} ms), ${mib(bytes)} MiB`,
  );
  const opens = [];
  for (let i = 0; i < runs; i++) opens.push(await child(['ann-open', dir]));
  const pick = (f) => round(median(opens.map(f)));
  const open = {
    loadMs: pick((r) => r.loadMs),
    firstQueryMs: pick((r) => r.firstQueryMs),
    secondQueryMs: pick((r) => r.secondQueryMs),
    rssAfterMiB: mib(median(opens.map((r) => r.after.rss))),
    heapUsedAfterMiB: mib(median(opens.map((r) => r.after.heapUsed))),
    runs,
  };
  log(
    `vectors ann: load ${open.loadMs} ms, first top-k ${open.firstQueryMs} ms, RSS ${open.rssAfterMiB} MiB`,
  );
  const q = await child(['ann-query', dir, queries, k]);
  let same = 0;
  q.tops.forEach((top, i) => {
    const want = new Set(exactTops[i]);
    same += top.filter((h) => want.has(h)).length;
  });
  const out = {
    buildMs: round(built.buildMs),
    buildCpuMs: round(built.buildCpuMs),
    fileBytes: bytes,
    fileMiB: mib(bytes),
    open,
    query: { wallMs: summarize(q.times), cpuMs: summarize(q.cpuTimes) },
    recallOfExact: round(same / (exactTops.length * k), 4),
  };
  log(
    `vectors ann: top-${k} p50 ${out.query.wallMs.p50} ms, p95 ${out.query.wallMs.p95} ms, recall ${out.recallOfExact}`,
  );
  return out;
}

async function oneSize(notes, { dims, queries, k, runs, log, encodings, json: withJson }) {
  const root = await mkdtemp(join(tmpdir(), `memvault-vectors-${notes}-`));
  const out = { notes };
  try {
    const tops = {};
    for (const encoding of encodings) {
      const dir = join(root, encoding);
      await mkdir(join(dir, '.mem'), { recursive: true });
      const built = await child(['build', dir, encoding, notes, dims]);
      out.vectors = built.vectors;
      const bytes = (await stat(join(dir, '.mem', FILES[encoding]))).size;
      log(
        `vectors ${notes}: ${encoding} ${built.vectors} vectors, ${mib(bytes)} MiB, save ${round(built.saveMs)} ms`,
      );
      const load = await loads(dir, 'load', encoding, runs);
      log(`vectors ${notes}: ${encoding} load ${load.loadMs} ms, RSS after ${load.rssAfterMiB} MiB`);
      const q = await child(['query', dir, encoding, queries, k]);
      tops[encoding] = q.tops;
      out[encoding] = {
        fileBytes: bytes,
        fileMiB: mib(bytes),
        saveMs: round(built.saveMs),
        load,
        query: { wallMs: summarize(q.times), cpuMs: summarize(q.cpuTimes) },
      };
      log(
        `vectors ${notes}: ${encoding} top-${k} p50 ${out[encoding].query.wallMs.p50} ms, p95 ${out[encoding].query.wallMs.p95} ms`,
      );
      if (encoding === 'int8' && built.vectors >= ANN_FROM_VECTORS)
        out.ann = await annFigures(dir, { queries, k, runs, log }, q.tops);
      await rm(dir, { recursive: true, force: true });
    }
    if (!tops.float32 || !tops.int8 || !withJson) return out;
    // int8's top k against Float32's (Float32 is exact to 1e-7): the share of the same sections.
    let same = 0;
    tops.int8.forEach((top, i) => {
      const want = new Set(tops.float32[i]);
      same += top.filter((h) => want.has(h)).length;
    });
    out.int8RecallOfFloat32 = round(same / (tops.float32.length * k), 4);
    // The old JSON cache: written as the old save would have (streamed), then read by the old loader.
    const dir = join(root, 'json');
    await mkdir(join(dir, '.mem'), { recursive: true });
    const json = await child(['json', dir, notes, dims]);
    const load = await loads(dir, 'json-load', undefined, json.bytes > 512 * 2 ** 20 ? 1 : runs);
    out.json = { fileBytes: json.bytes, fileMiB: mib(json.bytes), load };
    log(`vectors ${notes}: json ${mib(json.bytes)} MiB, load ${load.error ?? `${load.loadMs} ms`}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return out;
}

/**
 * Every size's figures, plus the settings and the machine's load while it ran.
 * @param {{ sizes?: number[], dims?: number, queries?: number, k?: number, runs?: number, annOnly?: boolean, log?: (line: string) => void }} [options]
 */
export async function benchVectors({
  sizes = [10_000, 100_000],
  dims = 384,
  queries = 250,
  k = 10,
  runs = 3,
  annOnly = false,
  log = () => {},
} = {}) {
  const loadBefore = loadavg()[0];
  const results = [];
  const encodings = annOnly ? ['int8'] : ENCODINGS;
  for (const notes of sizes)
    results.push(await oneSize(notes, { dims, queries, k, runs, log, encodings, json: !annOnly }));
  return {
    dims,
    k,
    queries,
    sectionsPerNote: '1-3',
    loadAverage: { before: round(loadBefore), after: round(loadavg()[0]) },
    sizes: results,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      notes: { type: 'string', default: '10000,100000' },
      queries: { type: 'string', default: '250' },
      'ann-only': { type: 'boolean', default: false },
    },
  });
  const result = await benchVectors({
    sizes: values.notes.split(',').map(Number),
    queries: Number(values.queries),
    annOnly: values['ann-only'],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
