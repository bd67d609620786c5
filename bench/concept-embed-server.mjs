// A deterministic stand-in for an embedding model, on 127.0.0.1, for the paraphrase benchmark
// (bench/paraphrase.mjs): an OpenAI-compatible `POST /v1/embeddings` whose vectors encode a table
// of paraphrase pairs. A text holding a question or its evidence gets that pair's concept direction
// (one axis of its own) plus a little noise hashed from the text; every other text gets a vector
// hashed from its text alone, random-ish. So a question is close to its evidence and to nothing
// else: the figures this makes measure memvault's plumbing (does meaning reach the compiled
// context?), never a model's quality.
import { createServer } from 'node:http';
import { makeRandom } from './prng.mjs';

const DIMENSIONS = 256;
/** The noise's length beside a concept axis of length 1: the pair's cosine comes to about 0.9 */
const CONCEPT_NOISE = 0.3;

function hash(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619);
  return h >>> 0;
}

/** A unit vector of numbers in [-1, 1], the same for the same text. */
function noise(text) {
  const r = makeRandom(hash(text));
  const v = Array.from({ length: DIMENSIONS }, () => r.next() * 2 - 1);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
}

/**
 * `pairs`: [question, evidence] texts; pair i owns axis i (at most DIMENSIONS pairs). A text that
 * contains either text of a pair (an entry's section holds the evidence with its speaker and time
 * around it) is that pair's concept.
 */
export function conceptVector(pairs, text) {
  const found = pairs.findIndex(([question, evidence]) => text.includes(question) || text.includes(evidence));
  const base = noise(text);
  if (found < 0) return base;
  const v = base.map((x) => x * CONCEPT_NOISE);
  v[found % DIMENSIONS] = (v[found % DIMENSIONS] ?? 0) + 1;
  return v;
}

/** Starts the server; `requests` counts the calls and `texts` the texts embedded. */
export async function startConceptServer(pairs) {
  const stats = { requests: 0, texts: 0 };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw);
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      stats.requests++;
      stats.texts += input.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: input.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: conceptVector(pairs, text),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    stats,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
