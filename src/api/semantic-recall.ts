// Recall over the live index: lexical always, with semantic similarity fused in when
// `embeddings.enabled` (sections embedded on demand into the vector cache in `.mem/`). A failing
// embeddings endpoint never fails a recall: the ranking falls back to lexical for a while.
import { CONFIG_FILE, type MemConfig } from '../core/config.js';
import { MemError } from '../core/errors.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { type EmbedProgress, type EmbedTexts, VectorCache } from '../indexing/vector-cache.js';
import { type AppliedRange, chooseRange } from '../recall/choose-range.js';
import { type RecallHit, type RecallOptions, recall } from '../recall/recall.js';
import { makeEmbedder } from '../reflect/make-embedder.js';
import type { WriteQueue } from './write-queue.js';

export interface EmbedStats {
  /** Sections with text */
  sections: number;
  /** Of them, embedded now (the others were cached) */
  embedded: number;
}

export interface RecallResult {
  query: string;
  /** The episode date range applied, when the query named a time or one was given */
  range?: AppliedRange;
  hits: RecallHit[];
}

export interface SemanticRecallOptions {
  root: string;
  config: MemConfig;
  index: VaultIndex;
  queue: WriteQueue;
  /** Save the vector cache after embedding (as the index cache: initialized, cache on, not read-only) */
  saveCache: boolean;
  onNotice: (message: string) => void;
  /** Read for the embeddings endpoint's key */
  env: NodeJS.ProcessEnv;
  /** Embeds texts instead of the config's endpoint (tests, other clients) */
  embed?: EmbedTexts;
}

const noop = () => undefined;

/** How long recall stays lexical after the embeddings endpoint failed */
const EMBED_RETRY_MS = 60_000;

export class SemanticRecall {
  private readonly root: string;
  private readonly config: MemConfig;
  private readonly index: VaultIndex;
  private readonly queue: WriteQueue;
  private readonly saveCache: boolean;
  private readonly onNotice: (message: string) => void;
  private readonly env: NodeJS.ProcessEnv;
  private embedTexts: EmbedTexts | undefined;
  private vectors: Promise<VectorCache> | undefined;
  /** A failing embeddings endpoint is reported once; recall falls back to lexical */
  private embedFailed = false;
  /** After a failure, recalls stay lexical until then (epoch ms), not waiting on a dead endpoint */
  private embedRetryAt = 0;

  constructor(options: SemanticRecallOptions) {
    this.root = options.root;
    this.config = options.config;
    this.index = options.index;
    this.queue = options.queue;
    this.saveCache = options.saveCache;
    this.onNotice = options.onNotice;
    this.env = options.env;
    this.embedTexts = options.embed;
  }

  /** The embeddings client, made on first use (and `openai` loaded on its first call) */
  private embedder(): EmbedTexts {
    if (!this.embedTexts) {
      const embedder = makeEmbedder(this.config, this.env, this.onNotice);
      this.embedTexts = (texts) => embedder.embed(texts);
    }
    return this.embedTexts;
  }

  private vectorCache(): Promise<VectorCache> {
    this.vectors ??= VectorCache.load(this.root, this.config.embeddings.model);
    return this.vectors;
  }

  /** See Vault.embed */
  embed(onProgress?: EmbedProgress): Promise<EmbedStats> {
    if (!this.config.embeddings.enabled)
      return Promise.reject(
        new MemError(
          'INVALID_ARGUMENT',
          `embeddings are off; set "embeddings": {"enabled": true} in ${CONFIG_FILE}`,
        ),
      );
    return this.queue.exclusive(async () => {
      const cache = await this.vectorCache();
      const texts: string[] = [];
      for (const note of this.index.notes.values())
        for (const section of note.sections) if (section.text.trim() !== '') texts.push(section.text);
      try {
        const embedded = await cache.fill(
          texts,
          this.embedder(),
          this.config.embeddings.batchSize,
          onProgress,
        );
        return { sections: texts.length, embedded };
      } finally {
        if (this.saveCache) await cache.save(this.root).catch(noop);
      }
    });
  }

  /** See Vault.recallAsync */
  async recallAsync(query: string, options: RecallOptions): Promise<RecallResult> {
    if (!this.config.embeddings.enabled || options.semantic) return this.recall(query, options);
    const now = options.now ?? new Date();
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const words = range?.onlyTime ? (range.words ?? '') : query;
    let semantic: RecallOptions['semantic'];
    if (words.trim() !== '' && Date.now() >= this.embedRetryAt) {
      try {
        await this.embed();
        const cache = await this.vectorCache();
        const [vector] = await this.embedder()([words]);
        if (vector)
          semantic = {
            query: vector,
            vectorOf: (section) => cache.get(section.text),
            weight: this.config.embeddings.weight,
          };
      } catch (error) {
        this.embedRetryAt = Date.now() + EMBED_RETRY_MS;
        if (!this.embedFailed) {
          this.embedFailed = true;
          this.onNotice(`mem: ${(error as Error).message}; recall is lexical only`);
        }
      }
    }
    return this.recall(query, { ...options, now, ...(semantic ? { semantic } : {}) });
  }

  /** See Vault.recall */
  recall(query: string, options: RecallOptions): RecallResult {
    const now = options.now ?? new Date();
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const hits = recall(this.index, this.config, range?.onlyTime ? (range.words ?? '') : query, {
      ...options,
      now,
      range: range ? { from: range.from, to: range.to } : undefined,
      rangeMode: range?.mode,
    });
    return { query, ...(range ? { range } : {}), hits };
  }
}
