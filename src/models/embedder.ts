import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import { lazyClient } from './openai-client.js';

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  model: string;
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * An OpenAI-compatible `/v1/embeddings` client (OpenAI, a local Ollama with `bge-m3` or
 * `nomic-embed-text`). `openai` is loaded on the first call, so nothing is loaded or sent while
 * embeddings are off.
 */
export function createEmbedder(config: MemConfig, env: NodeJS.ProcessEnv): Embedder {
  const { baseURL, model, apiKeyEnv } = config.embeddings;
  const apiKey = env[apiKeyEnv];
  const connect = lazyClient({ apiKey, baseURL, timeoutMs: config.llm.timeoutMs, maxRetries: 0 });
  return {
    model,
    async embed(texts) {
      if (texts.length === 0) return [];
      if (!apiKey && !baseURL)
        throw new MemError('LLM', `no embeddings endpoint: set ${apiKeyEnv} or embeddings.baseURL`);
      try {
        const response = await (await connect()).embeddings.create({
          model,
          input: texts,
          encoding_format: 'float',
        });
        const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
        if (vectors.length !== texts.length)
          throw new Error(`expected ${texts.length} vectors, got ${vectors.length}`);
        return vectors;
      } catch (error) {
        throw new MemError('LLM', `the embeddings call failed (${(error as Error).message})`, {
          cause: error,
        });
      }
    },
  };
}
