// A real embeddings endpoint for the benchmarks, from MEM_BENCH_EMBEDDINGS: either JSON, the
// `embeddings` settings of mem.config.json (`{"baseURL": "http://127.0.0.1:11434/v1", "model":
// "bge-m3"}`, with `apiKeyEnv` when the endpoint wants a key), or `URL MODEL` separated by a space.
// Unset: the benchmarks use their own stub, or none.

/** The `embeddings` config for a real endpoint, or undefined when MEM_BENCH_EMBEDDINGS is unset. */
export function benchEmbeddings(env = process.env) {
  const raw = env['MEM_BENCH_EMBEDDINGS']?.trim();
  if (!raw) return undefined;
  if (raw.startsWith('{')) {
    const config = JSON.parse(raw);
    if (typeof config.model !== 'string') throw new Error('MEM_BENCH_EMBEDDINGS: "model" is required');
    return { enabled: true, ...config };
  }
  const [baseURL, model] = raw.split(/\s+/);
  if (!baseURL || !model) throw new Error('MEM_BENCH_EMBEDDINGS: expected JSON or "URL MODEL"');
  return { enabled: true, baseURL, model };
}

/** Where the vectors came from, for the results: never the key. */
export function describeEmbeddings(config) {
  return config ? `${config.model} at ${config.baseURL ?? 'the OpenAI API'}` : undefined;
}
