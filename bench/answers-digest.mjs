// A digest of what the scale benchmark's vault answers, so a change to the index or the ranking
// that should not change any answer can be shown not to:
//   npm run build && node bench/answers-digest.mjs [notes=10000]
// Writes the synthetic vault (bench/synth-vault.mjs), opens it cold (no cache) and then warm (from
// the cache the cold open saved), and over both runs the scale benchmark's 200 recall queries and
// 200 compiles. Prints one line per open: a SHA-256 of every recall's hits (id and score to 9
// significant digits), one of the same with every score to the last bit (`exact`), and one of
// every compile's markdown; the two opens must agree. `async identical` says recallAsync and
// compileAsync (embeddings off) gave the same bytes.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openVault } from '../dist/index.js';
import { makeMessages, makeQueries } from './queries.mjs';
import { SYNTH_NOW, writeSynthVault } from './synth-vault.mjs';

const QUERIES = 200;
const BUDGET = 2000;
const total = Number(process.argv[2] ?? 10_000);

/**
 * Hashes of the recall hits and of the compiled markdown of one open vault. `async`: through
 * recallAsync and compileAsync, which with embeddings off must give the same bytes.
 */
async function answers(vault, queries, messages, async = false) {
  const recall = createHash('sha256');
  const exact = createHash('sha256');
  for (const q of queries) {
    const { hits } = async
      ? await vault.recallAsync(q.text, { now: SYNTH_NOW })
      : vault.recall(q.text, { now: SYNTH_NOW });
    recall.update(`${JSON.stringify(hits.map((hit) => [hit.id, hit.score.toPrecision(9)]))}\n`);
    exact.update(`${JSON.stringify(hits.map((hit) => [hit.id, hit.score]))}\n`);
  }
  const compile = createHash('sha256');
  for (const m of messages) {
    const options = { message: m.text, budget: BUDGET, now: SYNTH_NOW };
    const compiled = async ? await vault.compileAsync(options) : vault.compile(options);
    compile.update(`${compiled.markdown}\n\0`);
  }
  return { recall: recall.digest('hex'), exact: exact.digest('hex'), compile: compile.digest('hex') };
}

const root = await mkdtemp(join(tmpdir(), `memvault-answers-${total}-`));
try {
  const meta = await writeSynthVault(root, total);
  const queries = makeQueries(meta.people, QUERIES);
  const messages = makeMessages(meta.people, QUERIES);
  for (const open of ['cold', 'warm']) {
    const vault = await openVault({ path: root });
    const digest = await answers(vault, queries, messages);
    // With embeddings off (the synthetic vault's config), the async reads are the same reads.
    const async = await answers(vault, queries, messages, true);
    const same = JSON.stringify(async) === JSON.stringify(digest);
    console.log(
      `${open} ${total} notes: recall ${digest.recall} exact ${digest.exact} compile ${digest.compile} async ${same ? 'identical' : `DIFFERS (${JSON.stringify(async)})`}`,
    );
    await vault.close?.();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
