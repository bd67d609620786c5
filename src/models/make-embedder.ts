import type { MemConfig } from '../core/config/config.js';
import { createEmbedder, type Embedder } from './embedder.js';
import { createLocalEmbedder } from './local-embedder.js';

/**
 * The embedder `embeddings.provider` names: the OpenAI-compatible endpoint (openai), or the model
 * run in-process (local). Neither loads anything before its first call.
 */
export function makeEmbedder(
  config: MemConfig,
  env: NodeJS.ProcessEnv,
  onNotice: (message: string) => void,
): Embedder {
  return config.embeddings.provider === 'local'
    ? createLocalEmbedder(config, env, onNotice)
    : createEmbedder(config, env);
}
