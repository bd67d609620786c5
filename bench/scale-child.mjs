// One in-process step of bench/scale-peers.mjs, in a fresh process so its memory is its own:
//   node --expose-gc bench/scale-child.mjs inproc|minisearch <spec.json>
// spec: { root, queries: string[], messages: string[], now, warmups, budget }. Prints one JSON line.
// inproc: a warm openVault; recall and compile alone; then plain MiniSearch over the same notes in
// the same process, recall paired with it query by query (the order alternating) for the ratio.
// minisearch: plain MiniSearch alone (index cost, RSS).
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { openVault } from '../dist/index.js';

const [mode, specPath] = process.argv.slice(2);
if (!specPath) throw new Error('usage: node --expose-gc scale-child.mjs <inproc|minisearch> <spec.json>');
const spec = JSON.parse(await readFile(specPath, 'utf8'));
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const settledRss = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().rss;
};

/** Every Markdown note's whole text, the way a plain full-text index would take it. */
async function notes(root) {
  const docs = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const path = join(entry.parentPath, entry.name);
    const id = relative(root, path);
    if (id.startsWith('.')) continue;
    docs.push({ id, text: await readFile(path, 'utf8') });
  }
  return docs;
}

/** Plain MiniSearch: default options but the one field it needs. */
async function buildMiniSearch(root) {
  const mini = new MiniSearch({ fields: ['text'] });
  const docs = await notes(root);
  mini.addAll(docs);
  return { mini, docs: docs.length };
}

/** CPU and wall of one synchronous call. */
function measure(fn) {
  const c = cpu();
  const w = performance.now();
  const value = fn();
  return { cpuMs: cpu() - c, wallMs: performance.now() - w, value };
}

const out = { mode };
if (mode === 'minisearch') {
  const rssBefore = settledRss();
  const c = cpu();
  const { mini, docs } = await buildMiniSearch(spec.root);
  out.buildCpuMs = cpu() - c;
  out.docs = docs;
  out.terms = mini.termCount;
  out.rssBytes = settledRss();
  out.rssBeforeBytes = rssBefore;
} else if (mode === 'inproc') {
  const now = new Date(spec.now);
  const c = cpu();
  const vault = await openVault({ path: spec.root });
  out.openCpuMs = cpu() - c;
  out.notes = vault.noteCount;
  out.rssAfterOpenBytes = settledRss();
  // mem alone first: recall, then compile, in a heap that holds only the vault. Plain MiniSearch
  // over the same notes doubles the heap, and its searches' garbage is collected on V8's helper
  // threads, whose CPU process.cpuUsage() counts in whichever call runs meanwhile: measured beside
  // it, mem's p95 was largely MiniSearch's garbage collection.
  for (const q of spec.queries.slice(0, spec.warmups)) vault.recall(q, { now });
  const alone = spec.queries.map((q) => measure(() => vault.recall(q, { now }).hits.length));
  out.recall = alone.map(({ cpuMs, wallMs, value }) => ({ cpuMs, wallMs, hits: value }));
  for (const m of spec.messages.slice(0, spec.warmups))
    vault.compile({ message: m, budget: spec.budget, now });
  out.compile = spec.messages.map((m) => {
    const { cpuMs, wallMs, value } = measure(() => vault.compile({ message: m, budget: spec.budget, now }));
    return { cpuMs, wallMs, used: value.used };
  });
  // Then the pairs: mem and MiniSearch query by query, the order alternating, for the ratio.
  const { mini } = await buildMiniSearch(spec.root);
  for (const q of spec.queries.slice(0, spec.warmups)) mini.search(q);
  const paired = [];
  const search = [];
  spec.queries.forEach((q, i) => {
    const mem = () => measure(() => vault.recall(q, { now }).hits.length);
    const peer = () => measure(() => mini.search(q).length);
    if (i % 2 === 0) {
      paired.push(mem());
      search.push(peer());
    } else {
      search.push(peer());
      paired.push(mem());
    }
  });
  out.pairedRecall = paired.map(({ cpuMs, wallMs, value }) => ({ cpuMs, wallMs, hits: value }));
  out.miniSearch = search.map(({ cpuMs, wallMs, value }) => ({ cpuMs, wallMs, hits: value }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
out.peakRssBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify(out)}\n`);
