// Reflect's daily token budget: what the model calls of one day (in the vault's zone) used, in `.mem/`.

import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { withLock } from '../core/lock.js';
import { readRegularText } from '../core/regular-file.js';
import type { LlmUsage } from '../models/llm.js';
import { writeAtomic } from '../vault/write-note.js';

const FILE = 'reflect-usage.json';
/** Bumped when the file's shape changes; another version reads as nothing used. */
const VERSION = 1;

export interface DayUsage extends LlmUsage {
  /** The day in the vault's zone, YYYY-MM-DD */
  day: string;
}

export interface BudgetState {
  day: string;
  /** Prompt and completion tokens used on `day` */
  used: number;
  /** `reflect.maxTokensPerDay`; 0 means no cap */
  max: number;
}

/** Tokens used on `day`: zero when the file is missing, unreadable, of another version or another day. */
export async function readUsage(root: string, day: string): Promise<DayUsage> {
  const none = { day, promptTokens: 0, completionTokens: 0 };
  try {
    const data = JSON.parse(await readRegularText(join(cacheDir(root), FILE))) as Record<string, unknown>;
    if (data['version'] !== VERSION || data['day'] !== day) return none;
    const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
    return {
      day,
      promptTokens: count(data['promptTokens']),
      completionTokens: count(data['completionTokens']),
    };
  } catch {
    return none;
  }
}

/**
 * Adds one call's tokens to `day`'s count (a new day starts at zero). Under a lock of its own, so
 * `mem reflect` and a server reflecting in the background never lose each other's counts.
 */
export async function recordUsage(root: string, day: string, usage: LlmUsage): Promise<DayUsage> {
  const dir = await ensureCacheDir(root);
  return withLock(join(dir, 'reflect-usage.lock'), async () => {
    const before = await readUsage(root, day);
    const after = {
      day,
      promptTokens: before.promptTokens + usage.promptTokens,
      completionTokens: before.completionTokens + usage.completionTokens,
    };
    await writeAtomic(join(dir, FILE), `${JSON.stringify({ version: VERSION, ...after })}\n`);
    return after;
  });
}

export const totalTokens = (usage: LlmUsage) => usage.promptTokens + usage.completionTokens;
