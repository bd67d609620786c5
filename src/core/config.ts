import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MemError } from './errors.js';
import type { Layer } from './types.js';

/** `mem.config.json` at the vault root; every key optional, defaults below. */
export interface MemConfig {
  /** IANA time zone for episode dates and time expressions (default: the system's) */
  timezone: string;
  recall: {
    /** Results returned when the caller gives no k (default: 8) */
    k: number;
    /** Recency half-life in days (default: 30) */
    halfLifeDays: number;
    /** Weights of the score parts (text is the base) */
    weights: { text: number; graph: number; recency: number; importance: number; layer: number };
    /** Layer prior, 0..1 */
    layerPrior: Record<Layer, number>;
  };
  compile: {
    /** Token budget for the whole context (default: 2000) */
    budget: number;
    /** BPE encoding used to count tokens (default: o200k_base) */
    tokenizer: 'o200k_base' | 'cl100k_base';
    /** Share of the budget for each section, in order; unused budget flows to the next */
    shares: { persona: number; user: number; relevant: number; recent: number };
    /** How many recent episode entries to consider for the working-memory tail (default: 12) */
    recentEntries: number;
  };
  git: {
    /** Commit each mem write (default: true when the vault is in a git repo) */
    autoCommit: boolean;
  };
  llm: {
    baseURL?: string;
    model: string;
    /** Name of the environment variable that holds the API key (default: OPENAI_API_KEY) */
    apiKeyEnv: string;
    timeoutMs: number;
  };
  /** Whether reflect may change persona notes (default: false) */
  allowPersonaEdits: boolean;
  /**
   * Names written for roles in transcripts and companion turns, e.g. `{"user": "Rain",
   * "assistant": "小满"}` (default: none, the role is written as it comes)
   */
  speakers: Record<string, string>;
  // --- Limits (issue 10): bounds on the work one note may cost the indexer ---------------------
  limits: {
    /** A note longer than this many characters is indexed up to it (default: 2,000,000) */
    maxNoteChars: number;
    /** A line longer than this many characters is indexed up to it (default: 20,000) */
    maxLineChars: number;
    /** Links past this many in one note are left out of the graph (default: 5,000) */
    maxLinksPerNote: number;
  };
}

export const CONFIG_FILE = 'mem.config.json';

export function defaultConfig(): MemConfig {
  return {
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    recall: {
      k: 8,
      halfLifeDays: 30,
      weights: { text: 1, graph: 0.25, recency: 0.15, importance: 0.15, layer: 0.1 },
      layerPrior: { persona: 0.6, profile: 0.9, insights: 1, episodes: 0.7, archive: 0.2, other: 0.5 },
    },
    compile: {
      budget: 2000,
      tokenizer: 'o200k_base',
      shares: { persona: 0.2, user: 0.2, relevant: 0.45, recent: 0.15 },
      recentEntries: 12,
    },
    git: { autoCommit: true },
    llm: { model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY', timeoutMs: 120_000 },
    allowPersonaEdits: false,
    speakers: {},
    // Limits (issue 10)
    limits: { maxNoteChars: 2_000_000, maxLineChars: 20_000, maxLinksPerNote: 5000 },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep-merges `override` into `base`, keeping base's types: a wrong type is a config error. */
function merge(base: Record<string, unknown>, override: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(override)) {
    const current = base[key];
    if (current === undefined) {
      base[key] = value;
    } else if (isObject(current)) {
      if (!isObject(value))
        throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: ${where}${key} must be an object`);
      merge(current, value, `${where}${key}.`);
    } else if (typeof current !== typeof value) {
      throw new MemError(
        'INVALID_CONFIG',
        `${CONFIG_FILE}: ${where}${key} must be a ${typeof current}, got ${JSON.stringify(value)}`,
      );
    } else {
      base[key] = value;
    }
  }
}

export function resolveConfig(raw: unknown): MemConfig {
  const config = defaultConfig();
  if (raw === undefined) return config;
  if (!isObject(raw)) throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: expected a JSON object`);
  merge(config as unknown as Record<string, unknown>, raw, '');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: config.timezone });
  } catch {
    throw new MemError(
      'INVALID_CONFIG',
      `${CONFIG_FILE}: unknown timezone ${JSON.stringify(config.timezone)}`,
    );
  }
  return config;
}

export async function loadConfig(root: string): Promise<MemConfig> {
  let text: string;
  try {
    text = await readFile(join(root, CONFIG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return defaultConfig();
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new MemError('INVALID_CONFIG', `${CONFIG_FILE}: invalid JSON (${(error as Error).message})`);
  }
  return resolveConfig(raw);
}

/** The name to write for a speaker or role, per the config's `speakers` (matched without case). */
export function speakerName(config: MemConfig, speaker: string | undefined): string | undefined {
  if (speaker === undefined) return undefined;
  const named = config.speakers[speaker] ?? config.speakers[speaker.toLowerCase()];
  return typeof named === 'string' && named.trim() !== '' ? named : speaker;
}
