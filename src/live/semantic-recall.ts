// Recall and compile over the live index: lexical always, with a semantic ranking fused in (RRF)
// when `embeddings.enabled`. Sections are embedded into the vector cache in `.mem/` either before
// a read (a one-shot command) or in the background as they are written (a server); a read then
// sends one request, its query's. A failing endpoint never fails a read: it ranks by words, says
// so in its result (`embeddings`), and the endpoint is left alone for a while.

import { type CompileOptions, type CompileResult, compile, turnQuery } from '../compile/compile.js';
import { CONFIG_FILE, type MemConfig } from '../core/config/config.js';
import { expectString, MemError, refused } from '../core/errors.js';
import type { Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { type EmbedProgress, type EmbedTexts, VectorCache } from '../indexing/vectors/vector-cache.js';
import { makeEmbedder } from '../models/make-embedder.js';
import { type AppliedRange, chooseRange } from '../recall/choose-range.js';
import { type EmbeddingUse, type RecallHit, type RecallOptions, recall } from '../recall/recall.js';
import type { SemanticInput } from '../recall/semantic.js';
import { SectionsByText } from './sections-by-text.js';
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
  /** Only with `embeddings.enabled`: whether the semantic ranking joined, and why not */
  embeddings?: EmbeddingUse;
  hits: RecallHit[];
}

/**
 * When sections are embedded: `read` (default), what the cache lacks before each recall or compile
 * (one-shot commands); `background`, as they are written, batched, never on a read's path (a
 * server: `mem serve`, `mem daemon`, `mem mcp`); `never`, only read from the cache file another
 * process fills (a server's read workers).
 */
export type EmbedSections = 'read' | 'background' | 'never';

/** What /health says of embeddings, when they are on. */
export interface EmbeddingsHealth {
  model: string;
  state: 'ok' | 'down';
  /** Sections that had no vector at the last read or fill */
  unembedded?: number;
  /** Why they are down: recall and compile rank by words until `retryAt` */
  error?: string;
  retryAt?: string;
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
  embedSections?: EmbedSections;
}

const noop = () => undefined;

/** How long reads stay lexical after the embeddings endpoint failed */
const EMBED_RETRY_MS = 60_000;
/**
 * How long a read waits for an endpoint's vector of its query before it ranks by words (and
 * leaves the endpoint alone for EMBED_RETRY_MS): a turn must not wait on an endpoint that accepts
 * and never answers. (A local model loading for its first call may take longer, so a model an
 * endpoint such as Ollama loads on demand can miss the first turn; not the local provider.)
 */
const QUERY_TIMEOUT_MS = 5_000;
/** How long closing waits for a background fill in flight */
const CLOSE_WAIT_MS = 2_000;
/** How often a reader that never embeds sections reads the cache file again */
const RELOAD_MS = 10_000;
/** A burst of writes waits this long, so its sections go out in one batch */
const BACKGROUND_DELAY_MS = 200;

export class SemanticRecall {
  private readonly root: string;
  private readonly config: MemConfig;
  private readonly index: VaultIndex;
  /** Which sections hold each embedded text: top-k vectors become sections through it */
  private readonly byText: SectionsByText;
  private readonly queue: WriteQueue;
  private readonly saveCache: boolean;
  private readonly onNotice: (message: string) => void;
  private readonly env: NodeJS.ProcessEnv;
  private readonly mode: EmbedSections;
  private embedTexts: EmbedTexts | undefined;
  private vectors: Promise<VectorCache> | undefined;
  private loadedAt = 0;
  /** A failing embeddings endpoint is reported once; reads fall back to lexical */
  private embedFailed = false;
  /** After a failure, reads stay lexical until then (epoch ms), not waiting on a dead endpoint */
  private embedRetryAt = 0;
  private lastError: string | undefined;
  private unembedded: number | undefined;
  /** Fills of the cache, one after another (a background fill and `embed()` never overlap) */
  private filling: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: SemanticRecallOptions) {
    this.root = options.root;
    this.config = options.config;
    this.index = options.index;
    this.byText = new SectionsByText(options.index);
    this.queue = options.queue;
    this.saveCache = options.saveCache;
    this.onNotice = options.onNotice;
    this.env = options.env;
    this.embedTexts = options.embed;
    this.mode = options.embedSections ?? 'read';
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
    if (!this.vectors) this.loadedAt = Date.now();
    this.vectors ??= VectorCache.load(this.root, this.config.embeddings.model);
    return this.vectors;
  }

  /**
   * `never` mode: the cache file is another process's to fill, so it is read again every
   * RELOAD_MS, in the background; reads use the vectors they have meanwhile.
   */
  private reloadNow(): void {
    if (!this.vectors || Date.now() - this.loadedAt < RELOAD_MS) return;
    this.loadedAt = Date.now();
    const current = this.vectors;
    VectorCache.load(this.root, this.config.embeddings.model).then((fresh) => {
      if (this.vectors === current) this.vectors = Promise.resolve(fresh);
    }, noop);
  }

  private sectionTexts(): string[] {
    const texts: string[] = [];
    for (const note of this.index.notes.values())
      for (const section of note.sections) if (section.text.trim() !== '') texts.push(section.text);
    return texts;
  }

  /** Embeds what the cache lacks (after any fill in progress) and saves the cache. */
  private fill(onProgress?: EmbedProgress): Promise<EmbedStats> {
    const run = this.filling.then(async () => {
      const cache = await this.vectorCache();
      const texts = this.sectionTexts();
      try {
        const embedded = await cache.fill(
          texts,
          this.embedder(),
          this.config.embeddings.batchSize,
          onProgress,
        );
        this.unembedded = 0;
        return { sections: texts.length, embedded };
      } finally {
        if (this.saveCache) await cache.save(this.root).catch(noop);
      }
    });
    this.filling = run.catch(noop);
    return run;
  }

  /** See Vault.embed */
  embed(onProgress?: EmbedProgress): Promise<EmbedStats> {
    if (onProgress !== undefined && typeof onProgress !== 'function')
      return Promise.reject(refused('onProgress', 'a function', onProgress));
    if (!this.config.embeddings.enabled)
      return Promise.reject(
        new MemError(
          'INVALID_ARGUMENT',
          `embeddings are off; set "embeddings": {"enabled": true} in ${CONFIG_FILE}`,
        ),
      );
    return this.queue.exclusive(() => this.fill(onProgress));
  }

  /**
   * In `background` mode: embeds the sections the cache lacks soon, off the write queue (an add
   * never waits on the endpoint). Called when the index changed and when a read met sections
   * without a vector; a burst of calls makes one fill.
   */
  scheduleFill(): void {
    if (this.mode !== 'background' || !this.config.embeddings.enabled || this.timer || this.closed) return;
    const delay = Math.max(BACKGROUND_DELAY_MS, this.embedRetryAt - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fill().then(
        () => this.recovered(),
        (error: unknown) => {
          this.failed(error);
          this.scheduleFill();
        },
      );
    }, delay);
    this.timer.unref();
  }

  /** Stops background embedding and waits for a fill in flight (its vectors are saved). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // A fill waiting on a slow endpoint does not hold a server's shutdown for long; what it
    // embedded by then is saved when it ends (the cache file is replaced by a rename).
    await withTimeout(this.filling, CLOSE_WAIT_MS).catch(noop);
  }

  private failed(error: unknown): void {
    this.embedRetryAt = Date.now() + EMBED_RETRY_MS;
    this.lastError = (error as Error).message;
    if (!this.embedFailed) {
      this.embedFailed = true;
      this.onNotice(`mem: ${this.lastError}; recall and compile rank by words only for now`);
    }
  }

  private recovered(): void {
    this.embedFailed = false;
    this.lastError = undefined;
    this.embedRetryAt = 0;
  }

  /** What /health shows of embeddings; undefined while they are off. */
  health(): EmbeddingsHealth | undefined {
    if (!this.config.embeddings.enabled) return undefined;
    const down = Date.now() < this.embedRetryAt;
    return {
      model: this.config.embeddings.model,
      state: down ? 'down' : 'ok',
      ...(this.unembedded !== undefined ? { unembedded: this.unembedded } : {}),
      ...(down && this.lastError
        ? { error: this.lastError, retryAt: new Date(this.embedRetryAt).toISOString() }
        : {}),
    };
  }

  /**
   * The semantic input for one read (its query embedded: the one request on a read's path, besides
   * filling the cache first in `read` mode), or the reason the read ranks by words.
   */
  private async semanticFor(words: string): Promise<{ semantic?: SemanticInput; use: EmbeddingUse }> {
    const model = this.config.embeddings.model;
    const lexical = (reason: string) => ({ use: { model, ranking: 'lexical' as const, reason } });
    if (words.trim() === '') return lexical('nothing to embed in the query');
    if (Date.now() < this.embedRetryAt)
      return lexical(
        `the embeddings endpoint failed (${this.lastError}); asked again after ${new Date(this.embedRetryAt).toISOString()}`,
      );
    try {
      if (this.mode === 'read' && (await this.lacksVectors())) await this.embed();
      else if (this.mode === 'never') this.reloadNow();
      const cache = await this.vectorCache();
      // A model run in-process cannot hang like a socket, and its first call loads the model.
      const asked = this.embedder()([words]);
      const [query] = await (this.config.embeddings.provider === 'local'
        ? asked
        : withTimeout(asked, QUERY_TIMEOUT_MS));
      if (!query) return lexical('the endpoint sent no vector for the query');
      this.recovered();
      const { rrfK, fusion } = this.config.embeddings;
      const use: EmbeddingUse = { model, ranking: 'fused', fusion: `${fusion} k=${rrfK}`, unembedded: 0 };
      // Recall may ask for a section twice (its closeness as a candidate): each counts once.
      const unembedded = new Set<Section>();
      // The cache's own scoring: straight from its typed arrays, each text hashed once per cache.
      const closeness = cache.similarity(query);
      const similarity = (section: Section) => {
        const value = closeness(section.text);
        if (value === undefined && section.text.trim() !== '' && !unembedded.has(section)) {
          unembedded.add(section);
          use.unembedded = unembedded.size;
        }
        return value;
      };
      // The closest vectors by the cache's top-k (typed arrays, or the ANN index when large), as
      // the sections that hold their text: no section is scored that is not a candidate.
      const nearest = (limit: number) => {
        const found = cache.topK(query, limit);
        const out: Array<{ id: string; score: number }> = [];
        found.slots.forEach((slot, i) => {
          for (const id of this.byText.sectionsOf(cache.hashAt(slot)))
            out.push({ id, score: found.scores[i] ?? 0 });
        });
        return out;
      };
      return { semantic: { similarity, rrfK, nearest }, use };
    } catch (error) {
      this.failed(error);
      return lexical(`the embeddings endpoint failed (${(error as Error).message}); ranked by words`);
    }
  }

  /**
   * `read` mode: whether a section lacks a vector, so the cache must be filled before this read.
   * The cache remembers each text's slot, so a text is hashed once per cache.
   */
  private async lacksVectors(): Promise<boolean> {
    const cache = await this.vectorCache();
    // Asked once per state of the index: a read after no change finds what the last one left filled.
    const checked = this.index.view('semantic:filled', () => ({ filled: false }));
    if (checked.filled) return false;
    for (const note of this.index.notes.values())
      for (const section of note.sections)
        if (section.text.trim() !== '' && cache.slotOf(section.text) === undefined) return true;
    checked.filled = true;
    return false;
  }

  /** The notes at `paths` changed in the index (see SectionsByText). */
  sectionsChanged(paths: string[]): void {
    this.byText.changed(paths);
  }

  /** After a read: what it met unembedded is known, and a server embeds it next. */
  private afterRead(use: EmbeddingUse): EmbeddingUse {
    if (use.unembedded !== undefined) this.unembedded = use.unembedded;
    if (use.unembedded) this.scheduleFill();
    return use;
  }

  /** See Vault.recallAsync */
  async recallAsync(query: string, options: RecallOptions & { now: Date }): Promise<RecallResult> {
    expectString(query, 'the recall query');
    if (!this.config.embeddings.enabled || options.semantic) return this.recall(query, options);
    const now = options.now;
    // Held across the wait for the query's vector: a close meanwhile waits for this read.
    const release = this.index.hold();
    try {
      const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
      const { semantic, use } = await this.semanticFor(range?.onlyTime ? (range.words ?? '') : query);
      const result = this.recall(query, { ...options, now, ...(semantic ? { semantic } : {}) });
      return {
        query: result.query,
        ...(result.range ? { range: result.range } : {}),
        embeddings: this.afterRead(use),
        hits: result.hits,
      };
    } finally {
      release();
    }
  }

  /** See Vault.recall */
  recall(query: string, options: RecallOptions & { now: Date }): RecallResult {
    expectString(query, 'the recall query');
    const now = options.now;
    const range = chooseRange(this.index, query, now, this.config.timezone, options.range);
    const hits = recall(this.index, this.config, range?.onlyTime ? (range.words ?? '') : query, {
      ...options,
      now,
      range: range ? { from: range.from, to: range.to } : undefined,
      rangeMode: range?.mode,
    });
    return { query, ...(range ? { range } : {}), hits };
  }

  /** See Vault.compileAsync */
  async compileAsync(options: CompileOptions & { now: Date }): Promise<CompileResult> {
    if (!this.config.embeddings.enabled) return compile(this.index, this.config, options);
    const now = options.now;
    const release = this.index.hold();
    try {
      const { words } = turnQuery(this.index, this.config, options, now);
      const { semantic, use } = await this.semanticFor(words);
      const result = compile(this.index, this.config, { ...options, now }, semantic);
      return { embeddings: this.afterRead(use), ...result };
    } finally {
      release();
    }
  }
}

/** `promise`, or a rejection after `ms` (the promise itself runs on; its result is dropped). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
