// A local model server (Ollama, llama.cpp) cuts a prompt longer than its context window and answers
// anyway, from what is left: reflect then writes from half its episodes with no error anywhere. The
// prompt's size is known before the call, so it is checked against `reflect.contextWindow`.
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';

/** Where the model is asked, as a message names it (no base URL: OpenAI's). */
export const endpointName = (baseURL: string | undefined): string => baseURL ?? 'https://api.openai.com/v1';

/**
 * Undefined when the prompt fits (or no window is configured); else the warning to show, or, with
 * `reflect.overContext: "refuse"`, a MemError thrown before anything is sent.
 */
export function checkContextWindow(
  promptTokens: number,
  config: MemConfig,
  model: { model: string; baseURL?: string },
): string | undefined {
  const window = config.reflect.contextWindow;
  if (window === undefined || promptTokens <= window) return undefined;
  const sizes = `reflect's prompt is about ${promptTokens} tokens, more than reflect.contextWindow ${window} of ${model.model} at ${endpointName(model.baseURL)}`;
  const fix =
    'a local server cuts what does not fit without an error: raise its context (Ollama: num_ctx, e.g. `PARAMETER num_ctx 32768` in a Modelfile or OLLAMA_CONTEXT_LENGTH) and reflect.contextWindow with it, or reflect fewer episodes per run (--max-episodes)';
  if (config.reflect.overContext === 'refuse')
    throw new MemError('LLM', `${sizes}; the run was refused and nothing was written (${fix})`);
  return `mem: warning: ${sizes}; ${fix}`;
}
