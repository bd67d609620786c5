import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const DIMENSIONS = 64;

/** Words the stub treats as one (so a paraphrase with no shared word is close in meaning). */
const SYNONYMS: Record<string, string> = { car: 'automobile', cars: 'automobile', vehicle: 'automobile' };

function bucket(word: string): number {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619);
  return (h >>> 0) % DIMENSIONS;
}

/** A deterministic embedding: a hashed bag of lower-cased words, synonyms folded together. */
export function stubVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    vector[bucket(word)] = (vector[bucket(word)] ?? 0) + 1;
  }
  return vector;
}

/**
 * A minimal OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 that answers with
 * `stubVector`, or with `failWith` as the HTTP status while it is set. Records every request's input.
 */
export async function startEmbedStub() {
  const requests: string[][] = [];
  const state: { failWith?: number } = {};
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as { model: string; input: string | string[] };
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      requests.push(input);
      if (state.failWith) {
        res
          .writeHead(state.failWith, { 'content-type': 'application/json' })
          .end('{"error":{"message":"stub failure"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: stubVector(text) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
