// A digest of what the scale benchmark's vault answers, so a change to the index or the ranking
// that should not change any answer can be shown not to:
//   npm run build && node bench/answers-digest.mjs [notes=10000]
// Writes the synthetic vault (bench/synth-vault.mjs), opens it cold (no cache) and then warm (from
// the cache the cold open saved), and over both runs the scale benchmark's 200 recall queries and
// 200 compiles. Prints one line per open: a SHA-256 of every recall's hits (id and score to 9
// significant digits), one of the same with every score to the last bit (`exact`), and one of
// every compile's markdown; the two opens must agree.
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

/** Hashes of the recall hits and of the compiled markdown of one open vault. */
function answers(vault, queries, messages) {
  const recall = createHash('sha256');
  const exact = createHash('sha256');
  for (const q of queries) {
    const { hits } = vault.recall(q.text, { now: SYNTH_NOW });
    recall.update(`${JSON.stringify(hits.map((hit) => [hit.id, hit.score.toPrecision(9)]))}\n`);
    exact.update(`${JSON.stringify(hits.map((hit) => [hit.id, hit.score]))}\n`);
  }
  const compile = createHash('sha256');
  for (const m of messages) {
    compile.update(`${vault.compile({ message: m.text, budget: BUDGET, now: SYNTH_NOW }).markdown}\n\0`);
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
    const digest = answers(vault, queries, messages);
    console.log(
      `${open} ${total} notes: recall ${digest.recall} exact ${digest.exact} compile ${digest.compile}`,
    );
    await vault.close?.();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
