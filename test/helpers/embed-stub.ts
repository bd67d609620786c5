import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const DIMENSIONS = 64;

/** Words the stub treats as one (so a paraphrase with no shared word is close in meaning). */
const SYNONYMS: Record<string, string> = {
  car: 'automobile',
  cars: 'automobile',
  vehicle: 'automobile',
  // "How is your knee?" against "the physio says the ligament is healing well"
  physio: 'knee',
  ligament: 'knee',
};

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
 * While `hold` is set, a request whose input it matches waits for `hold.until` before answering.
 */
export async function startEmbedStub() {
  const requests: string[][] = [];
  const state: {
    failWith?: number;
    hold?: { when: (input: string[]) => boolean; until: Promise<void> };
  } = {};
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
      void answer(input, body.model);
    });
    async function answer(input: string[], model: string) {
      if (state.hold?.when(input)) await state.hold.until;
      if (state.failWith) {
        res
          .writeHead(state.failWith, { 'content-type': 'application/json' })
          .end('{"error":{"message":"stub failure"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model,
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: stubVector(text) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    }
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
