import type { IngestTurn } from '../ingest.js';

export type { ImportFormat } from '../../core/import-formats.js';

/** One conversation (or one journal day) read from an export, as turns ready to write. */
export interface ImportedConversation {
  title: string;
  turns: IngestTurn[];
}

/** Why messages were left out, with how many: `{ 'system or tool message': 3 }`. */
export type SkipCounts = Record<string, number>;

export function countSkip(skipped: SkipCounts, reason: string, by = 1): void {
  skipped[reason] = (skipped[reason] ?? 0) + by;
}

/** The roles an export's turns are written as; the vault's `speakers` names them. */
export const USER = 'user';
export const ASSISTANT = 'assistant';

/** A parse failure's message: the file, where in it, and what was expected. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
