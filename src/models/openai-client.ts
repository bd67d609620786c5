import type OpenAI from 'openai';

export interface ClientSettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * An OpenAI-compatible client made on first use: `openai` is loaded only then, so a command that
 * never calls a model (recall, compile, --help) never pays for it. Local servers need no key.
 */
export function lazyClient(settings: ClientSettings): () => Promise<OpenAI> {
  let client: OpenAI | undefined;
  return async () => {
    const { default: OpenAIClient } = await import('openai');
    client ??= new OpenAIClient({
      apiKey: settings.apiKey ?? 'not-needed',
      baseURL: settings.baseURL,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    });
    return client;
  };
}
