import type { IngestTurn } from './ingest.js';

export type { ImportFormat } from '../../core/import-formats.js';

/** One conversation (or one journal day) read from an export, as turns ready to write. */
export interface ImportedConversation {
  title: string;
  turns: IngestTurn[];
}

/** Why messages were left out, with how many: `{ 'system or tool message': 3 }`. */
export type SkipCounts = Record<string, number>;

/**
 * Why a message with a time that is no time (`"yesterday"`, `-5`) or none a daily note can be named
 * by (past 9999) is left out: one bad item is counted, never the whole export refused, and never
 * filed under another day (today) instead of its own.
 */
export const BAD_TIME = 'message with a malformed or out-of-range time';

/** Why a message of an export is left out when neither it nor its conversation says when it was. */
export const NO_TIME = 'message without a time';

/** Whether an export's time field is there at all (`null` is how ChatGPT writes none). */
export const hasValue = (value: unknown): boolean => value !== undefined && value !== null;

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
