// In-process recall and compile on a seeded vault, per query shape, with every answer saved so two
// builds can be compared hit by hit:
//   node bench/recall-profile.mjs <vault> [--notes 10000] [--queries 200] [--compiles 200]
//        [--warmups 20] [--runs 1] [--out answers.json] [--diff other-answers.json] [--no-compile]
// The vault is one from bench/synth-vault.mjs (its note count picks the people the queries name;
// --notes when the folder name does not say it). CPU is user + system time of one synchronous
// call; with --runs N each query is asked N times and its median kept. Prints p50/p95 per shape and
// overall; --out saves each query's top hits (id and score) and each compile's document hash;
// --diff compares them with a saved file and prints every query whose answer changed. Run with
// node --expose-gc to collect opening's garbage before the first measurement.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { openVault } from '../dist/index.js';
import { makeMessages, makeQueries } from './queries.mjs';
import { SYNTH_NOW, vaultPlan } from './synth-vault.mjs';
import { PEOPLE } from './word-lists.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    notes: { type: 'string' },
    queries: { type: 'string', default: '200' },
    compiles: { type: 'string', default: '200' },
    warmups: { type: 'string', default: '20' },
    runs: { type: 'string', default: '1' },
    out: { type: 'string' },
    diff: { type: 'string' },
    'no-compile': { type: 'boolean', default: false },
  },
});
const root = positionals[0];
if (!root) throw new Error('usage: node bench/recall-profile.mjs <vault> [--out f] [--diff f]');
const named = /v(\d+)k/.exec(basename(root));
const total = Number(values.notes ?? (named ? Number(named[1]) * 1000 : Number.NaN));
if (!Number.isFinite(total)) throw new Error('say --notes: the vault name does not give its size');
const people = PEOPLE.slice(0, vaultPlan(total).people);
const queries = makeQueries(people, Number(values.queries));
const messages = makeMessages(people, Number(values.compiles));
const runs = Math.max(1, Number(values.runs));
const warmups = Number(values.warmups);

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** The median CPU ms of `runs` calls, and the last call's value. */
function measure(fn) {
  const times = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const c = cpu();
    value = fn();
    times.push(cpu() - c);
  }
  return { cpuMs: quantile(times, 0.5), value };
}
function quantile(list, q) {
  const sorted = [...list].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
const fmt = (ms) => (ms >= 10 ? ms.toFixed(0) : ms.toFixed(1));

const c0 = cpu();
const vault = await openVault({ path: root });
const openCpuMs = cpu() - c0;
// With --expose-gc, opening's garbage is collected before anything is measured, as the scale
// benchmark does: otherwise the first queries pay for marking the heap the open just built.
globalThis.gc?.();
process.stderr.write(`opened ${vault.noteCount} notes in ${fmt(openCpuMs)} ms CPU\n`);

const now = SYNTH_NOW;
for (const q of queries.slice(0, warmups)) vault.recall(q.text, { now });
const recall = queries.map((q) => {
  const { cpuMs, value } = measure(() => vault.recall(q.text, { now }));
  return {
    shape: q.shape,
    query: q.text,
    cpuMs,
    hits: value.hits.map((h) => [h.id, h.score]),
  };
});
let compile = [];
if (!values['no-compile']) {
  for (const m of messages.slice(0, warmups)) vault.compile({ message: m.text, budget: 2000, now });
  compile = messages.map((m) => {
    const { cpuMs, value } = measure(() => vault.compile({ message: m.text, budget: 2000, now }));
    const hash = createHash('sha256').update(value.markdown).digest('hex').slice(0, 16);
    return { shape: m.shape, message: m.text, cpuMs, used: value.used, hash };
  });
}

function table(name, rows) {
  const shapes = [...new Set(rows.map((r) => r.shape)), 'all'];
  const lines = [
    `${name} (CPU ms per call, median of ${runs} run(s) each)`,
    'shape   n    p50    p95    max',
  ];
  for (const shape of shapes) {
    const ms = rows.filter((r) => shape === 'all' || r.shape === shape).map((r) => r.cpuMs);
    lines.push(
      `${shape.padEnd(6)} ${String(ms.length).padStart(3)} ${fmt(quantile(ms, 0.5)).padStart(6)} ${fmt(
        quantile(ms, 0.95),
      ).padStart(6)} ${fmt(Math.max(...ms)).padStart(6)}`,
    );
  }
  return lines.join('\n');
}
process.stdout.write(`${table('recall', recall)}\n`);
if (compile.length > 0) process.stdout.write(`${table('compile @2000', compile)}\n`);

const answers = { vault: root, notes: vault.noteCount, openCpuMs, recall, compile };
if (values.out) await writeFile(values.out, `${JSON.stringify(answers)}\n`);
if (values.diff) {
  const other = JSON.parse(await readFile(values.diff, 'utf8'));
  let changed = 0;
  recall.forEach((r, i) => {
    const o = other.recall[i];
    if (!o || o.query !== r.query) throw new Error(`--diff: query ${i} differs; same --queries?`);
    if (JSON.stringify(o.hits) !== JSON.stringify(r.hits)) {
      changed++;
      process.stdout.write(
        `recall ${i} "${r.query}" changed:\n  was ${JSON.stringify(o.hits)}\n  now ${JSON.stringify(r.hits)}\n`,
      );
    }
  });
  let compileChanged = 0;
  compile.forEach((c, i) => {
    const o = other.compile?.[i];
    if (o && o.hash !== c.hash) {
      compileChanged++;
      process.stdout.write(`compile ${i} "${c.message}" changed (${o.used} → ${c.used} tokens)\n`);
    }
  });
  process.stdout.write(
    `diff: ${changed} of ${recall.length} recall answers changed; ${compileChanged} of ${compile.length} compiles changed\n`,
  );
}
