import { MemError } from '../../core/errors.js';
import { parseInstant } from '../../time/parse-instant.js';
import {
  ASSISTANT,
  BAD_TIME,
  countSkip,
  hasValue,
  type ImportedConversation,
  isRecord,
  type SkipCounts,
  USER,
} from './import-types.js';
import type { IngestTurn } from './ingest.js';

/**
 * Reads one Open-LLM-VTuber chat history file (`chat_history/<conf_uid>/<history_uid>.json`, as
 * written by its chat_history_manager.py): a JSON array whose first item may be
 * `{ role: 'metadata', timestamp }`, then `{ role: 'human' | 'ai', timestamp, content, name? }`.
 * Timestamps are the host's local time without an offset, read in the vault's `timeZone`.
 * `names` are the vault's configured speaker names: without one for a role, the file's `name` is used.
 */
export function parseVtuberHistory(
  data: unknown,
  file: string,
  timeZone: string,
  names: Record<string, string>,
  skipped: SkipCounts,
): ImportedConversation {
  if (!Array.isArray(data)) throw new MemError('INVALID_ARGUMENT', `${file}: expected an array of messages`);
  const turns: IngestTurn[] = [];
  data.forEach((message, i) => {
    if (!isRecord(message))
      throw new MemError('INVALID_ARGUMENT', `${file}: message ${i + 1} is not an object`);
    const role = message['role'];
    if (role === 'metadata') return;
    if (role !== 'human' && role !== 'ai') {
      countSkip(skipped, 'system or tool message');
      return;
    }
    const text = typeof message['content'] === 'string' ? message['content'].trim() : '';
    if (text === '') {
      countSkip(skipped, 'empty message');
      return;
    }
    const given = message['timestamp'];
    const at = typeof given === 'string' ? parseInstant(given, timeZone) : undefined;
    // A time that is there but no time is this message's own fault: it alone is left out.
    if (hasValue(given) && at === undefined) {
      countSkip(skipped, BAD_TIME);
      return;
    }
    const as = role === 'human' ? USER : ASSISTANT;
    const own =
      typeof message['name'] === 'string' && message['name'].trim() ? message['name'].trim() : undefined;
    const speaker = names[as] || !own ? as : own;
    turns.push({ speaker, text, ...(at ? { at } : {}) });
  });
  const title = file
    .slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1)
    .replace(/\.json$/i, '');
  return { title, turns };
}

/** Whether parsed JSON looks like an Open-LLM-VTuber history: items with role human/ai/metadata. */
export function isVtuberHistory(data: unknown): boolean {
  return (
    Array.isArray(data) &&
    data.length > 0 &&
    data.every((m) => isRecord(m) && ['human', 'ai', 'metadata'].includes(String(m['role']))) &&
    data.some((m) => isRecord(m) && typeof m['timestamp'] === 'string')
  );
}
