// The local embeddings provider (`embeddings.provider: "local"`): a sentence-embedding model run
// in-process by Transformers.js on ONNX Runtime (CPU), no server. `@huggingface/transformers` is an
// optional peer dependency, loaded here only, on the first embedding. The model is downloaded on
// first use into a per-user cache folder (`<cache>/<model id>/…`, as Transformers.js lays it out),
// with progress on stderr; offline, the error names the model, the host, the folder and the files
// to place there by hand.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { Embedder } from './embedder.js';

/** The Hugging Face Hub, unless `HF_ENDPOINT` names a mirror (e.g. https://hf-mirror.com). */
const DEFAULT_HOST = 'https://huggingface.co';

/** The weights loaded: 8-bit quantized, a quarter of fp32's download for nearly the same vectors. */
const DTYPE = 'q8';

/** The files a sentence-embedding model needs, relative to its folder. */
export const MODEL_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model_quantized.onnx',
] as const;

/** What this module uses of `@huggingface/transformers` (its own types are not part of mem's). */
export interface Transformers {
  env: {
    cacheDir: string | null;
    localModelPath: string;
    allowLocalModels: boolean;
    allowRemoteModels: boolean;
    remoteHost: string;
    logLevel: number;
  };
  LogLevel: { ERROR: number };
  pipeline(task: 'feature-extraction', model: string, options: object): Promise<Extractor>;
}

type Extractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ dims: number[]; tolist(): number[][] }>;

interface ProgressInfo {
  status: string;
  progress?: number;
  total?: number;
}

export interface LocalModelSettings {
  model: string;
  /** Where the model's folder is (or will be downloaded) */
  cacheDir: string;
  /** Download from here when the model is not in the cache; undefined: never download */
  remoteHost: string | undefined;
}

/** The cache folder of the local models: MEM_MODEL_CACHE, embeddings.cacheDir, else the per-user one. */
export function modelCacheDir(config: MemConfig, env: NodeJS.ProcessEnv, home = homedir()): string {
  const expand = (path: string) => (path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path);
  const chosen = env['MEM_MODEL_CACHE'] || config.embeddings.cacheDir;
  if (chosen) return resolve(expand(chosen));
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg?.startsWith('/') ? xdg : join(home, '.cache'), 'memvault', 'models');
}

/** The settings the config and the environment give (HF_ENDPOINT, HF_HUB_OFFLINE as Hugging Face's tools read them). */
export function localModelSettings(config: MemConfig, env: NodeJS.ProcessEnv): LocalModelSettings {
  const offline = ['1', 'true', 'yes', 'on'].includes((env['HF_HUB_OFFLINE'] ?? '').toLowerCase());
  return {
    model: config.embeddings.model,
    cacheDir: modelCacheDir(config, env),
    remoteHost: offline ? undefined : (env['HF_ENDPOINT'] || DEFAULT_HOST).replace(/\/+$/, ''),
  };
}

/** `@huggingface/transformers`, imported on the first embedding only (an optional peer dependency). */
const importTransformers = () =>
  import('@huggingface/transformers') as Promise<unknown> as Promise<Transformers>;

async function loadTransformers(load: () => Promise<Transformers>): Promise<Transformers> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    if (missing && String((error as Error).message).includes('@huggingface/transformers'))
      throw new MemError(
        'LLM',
        'embeddings.provider is "local" but @huggingface/transformers is not installed; run `npm install @huggingface/transformers` where mem is installed (ONNXRUNTIME_NODE_INSTALL=skip before it: ONNX Runtime without its GPU download)',
        { cause: error },
      );
    throw new MemError('LLM', `could not load @huggingface/transformers (${(error as Error).message})`, {
      cause: error,
    });
  }
}

const exists = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/** The model's files not (yet) in its cache folder. */
export async function missingModelFiles(settings: LocalModelSettings): Promise<string[]> {
  const folder = join(settings.cacheDir, ...settings.model.split('/'));
  const present = await Promise.all(MODEL_FILES.map((file) => exists(join(folder, file))));
  return MODEL_FILES.filter((_, i) => !present[i]);
}

/** The host of a URL as a person names it (huggingface.co), or the text itself if it is no URL. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** An error's first line, with the network's own reason (`fetch failed: ENOTFOUND`) when it has one. */
function reasonOf(error: unknown): string {
  const first = String((error as Error).message ?? error).split('\n')[0];
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : undefined;
  return detail && !first?.includes(detail) ? `${first}: ${detail}` : (first ?? '');
}

/** Why the model is unusable, in words that say what to do: offline, the files to place by hand. */
function loadError(settings: LocalModelSettings, missing: string[], error: unknown): MemError {
  const { model, cacheDir, remoteHost } = settings;
  const folder = join(cacheDir, ...model.split('/'));
  const reason = reasonOf(error);
  if (missing.length === 0)
    return new MemError(
      'LLM',
      `could not load the local embedding model "${model}" from ${folder} (${reason})`,
      {
        cause: error,
      },
    );
  const host = remoteHost ?? DEFAULT_HOST;
  const byHand = `place its files there by hand: ${missing.join(', ')} from ${host}/${model}/tree/main into ${folder}/ (keeping the onnx/ folder)`;
  const head = remoteHost
    ? `could not download the local embedding model "${model}" from ${hostOf(remoteHost)} into ${cacheDir} (${reason}); when online, run \`mem index --embed\` once, set HF_ENDPOINT to a mirror (e.g. https://hf-mirror.com), or `
    : `the local embedding model "${model}" is not in ${cacheDir} and downloads are off (HF_HUB_OFFLINE); run \`mem index --embed\` once without it, or `;
  return new MemError('LLM', `${head}${byHand}`, { cause: error });
}

/** Reports a download's progress as lines, one per tenth done, so a log stays short. */
function downloadProgress(model: string, onNotice: (message: string) => void) {
  let shown = 0;
  return (info: ProgressInfo) => {
    if (info.status !== 'progress_total' || !info.total || info.progress === undefined) return;
    const tenth = Math.floor(info.progress / 10);
    if (tenth <= shown) return;
    shown = tenth;
    onNotice(`mem: downloading ${model}: ${Math.min(100, tenth * 10)}% of ${megabytes(info.total)}`);
  };
}

/** Loads the model once per process: from the cache, or downloaded into it first. */
async function loadExtractor(
  settings: LocalModelSettings,
  onNotice: (message: string) => void,
  load: () => Promise<Transformers>,
): Promise<Extractor> {
  if (settings.remoteHost !== undefined && !/^https?:\/\/[^/]/.test(settings.remoteHost))
    throw new MemError(
      'LLM',
      `HF_ENDPOINT must be an http(s) URL such as https://hf-mirror.com, got "${settings.remoteHost}"`,
    );
  const transformers = await loadTransformers(load);
  const { env } = transformers;
  env.cacheDir = settings.cacheDir;
  env.localModelPath = settings.cacheDir;
  env.allowLocalModels = true;
  env.allowRemoteModels = settings.remoteHost !== undefined;
  env.remoteHost = `${settings.remoteHost ?? DEFAULT_HOST}/`;
  env.logLevel = transformers.LogLevel.ERROR;
  const missing = await missingModelFiles(settings);
  const downloading = missing.length > 0 && settings.remoteHost !== undefined;
  if (downloading)
    onNotice(
      `mem: downloading the embedding model ${settings.model} from ${hostOf(settings.remoteHost as string)} into ${settings.cacheDir} (first use only)`,
    );
  try {
    const extractor = await transformers.pipeline('feature-extraction', settings.model, {
      dtype: DTYPE,
      device: 'cpu',
      ...(downloading ? { progress_callback: downloadProgress(settings.model, onNotice) } : {}),
    });
    if (downloading) onNotice(`mem: the embedding model ${settings.model} is ready`);
    return extractor;
  } catch (error) {
    throw loadError(settings, await missingModelFiles(settings), error);
  }
}

/**
 * The local provider: texts → mean-pooled, normalized sentence vectors of `embeddings.model`. The
 * model is loaded on the first call (a failed load is tried again on the next); `load` stands in
 * for importing `@huggingface/transformers` in tests.
 */
export function createLocalEmbedder(
  config: MemConfig,
  env: NodeJS.ProcessEnv,
  onNotice: (message: string) => void,
  load: () => Promise<Transformers> = importTransformers,
): Embedder {
  const settings = localModelSettings(config, env);
  let extractor: Promise<Extractor> | undefined;
  return {
    model: settings.model,
    async embed(texts) {
      if (texts.length === 0) return [];
      extractor ??= loadExtractor(settings, onNotice, load);
      let run: Extractor;
      try {
        run = await extractor;
      } catch (error) {
        extractor = undefined;
        throw error;
      }
      try {
        const output = await run(texts, { pooling: 'mean', normalize: true });
        const vectors = output.tolist();
        if (vectors.length !== texts.length)
          throw new Error(`expected ${texts.length} vectors, got ${vectors.length}`);
        return vectors;
      } catch (error) {
        throw new MemError('LLM', `the local embedding model failed (${(error as Error).message})`, {
          cause: error,
        });
      }
    },
  };
}
