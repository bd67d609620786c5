import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import { endpointName } from './context-window.js';
import { lazyClient } from './openai-client.js';

export interface LlmOptions {
  baseURL?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** Tokens one model call used, as the API's `usage` reports them */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface CallOptions {
  /** Abandons the call: it rejects at once and nothing is written */
  signal?: AbortSignal;
  /** Receives the call's token counts when the API reports them */
  onUsage?: (usage: LlmUsage) => void;
}

export interface Llm {
  model: string;
  /** The endpoint asked (undefined: OpenAI's), named in errors and warnings */
  baseURL?: string;
  /** Sends one system prompt, returns the model's JSON object (parsed, not yet validated) */
  completeJson(system: string, user: string, options?: CallOptions): Promise<unknown>;
}

/** Models sometimes wrap JSON in a code fence despite being told not to. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(text);
  return fenced ? (fenced[1] ?? '') : text;
}

/** Whether a model is configured (a key for OpenAI, or an endpoint of its own); else reflect runs offline. */
export function hasModel(config: MemConfig, env: NodeJS.ProcessEnv, options: LlmOptions = {}): boolean {
  return Boolean(
    options.apiKey ??
      env[config.llm.apiKeyEnv] ??
      options.baseURL ??
      env['MEM_LLM_BASE_URL'] ??
      config.llm.baseURL,
  );
}

/**
 * The one place that talks to a model: any OpenAI-compatible chat endpoint (OpenAI, a local Ollama
 * or llama.cpp server). Local servers need no key, so a missing key is only an error for OpenAI itself.
 */
export function createLlm(config: MemConfig, env: NodeJS.ProcessEnv, options: LlmOptions = {}): Llm {
  const baseURL = options.baseURL ?? env['MEM_LLM_BASE_URL'] ?? config.llm.baseURL;
  const model = options.model ?? env['MEM_LLM_MODEL'] ?? config.llm.model;
  const apiKey = options.apiKey ?? env[config.llm.apiKeyEnv];
  if (!apiKey && !baseURL) {
    throw new MemError(
      'LLM',
      `no model configured: set ${config.llm.apiKeyEnv} for OpenAI, or llm.baseURL in mem.config.json (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
    );
  }
  const connect = lazyClient({
    apiKey,
    baseURL,
    timeoutMs: options.timeoutMs ?? config.llm.timeoutMs,
    maxRetries: 1,
  });
  return {
    model,
    ...(baseURL ? { baseURL } : {}),
    async completeJson(system, user, options = {}) {
      let content: string | null | undefined;
      try {
        const response = await (await connect()).chat.completions.create(
          {
            model,
            temperature: 0.2,
            response_format: { type: 'json_object' },
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
          },
          { signal: options.signal },
        );
        content = response.choices[0]?.message?.content;
        const usage = response.usage;
        if (usage)
          options.onUsage?.({
            promptTokens: usage.prompt_tokens ?? 0,
            completionTokens: usage.completion_tokens ?? 0,
          });
      } catch (error) {
        if (options.signal?.aborted)
          throw new MemError(
            'LLM',
            'the model call was abandoned (the run was stopped); nothing was written',
            {
              cause: error,
            },
          );
        // "Connection error." alone does not say which server was down: name it.
        // (openai is loaded already: the call that failed loaded it.)
        const { APIConnectionError } = await import('openai');
        const unreachable = error instanceof APIConnectionError ? ` at ${endpointName(baseURL)}` : '';
        throw new MemError(
          'LLM',
          `the model call${unreachable} failed (${(error as Error).message}); nothing was written`,
          {
            cause: error,
          },
        );
      }
      if (!content) throw new MemError('LLM', 'the model returned an empty answer; nothing was written');
      try {
        return JSON.parse(stripFence(content));
      } catch {
        throw new MemError(
          'LLM',
          `the model's answer is not valid JSON; nothing was written: ${content.slice(0, 200)}`,
        );
      }
    },
  };
}
