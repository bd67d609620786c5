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
 * The words of one message: its `content` blocks of type `text` (newer exports), else its `text`.
 * `tool_use`, `tool_result` and `thinking` blocks are the model's work, not the conversation.
 */
function textOf(message: Record<string, unknown>): string {
  const blocks = Array.isArray(message['content']) ? message['content'] : [];
  const texts = blocks
    .filter(
      (b): b is Record<string, unknown> =>
        isRecord(b) && b['type'] === 'text' && typeof b['text'] === 'string',
    )
    .map((b) => String(b['text']));
  if (texts.length > 0) return texts.join('\n').trim();
  return typeof message['text'] === 'string' ? message['text'].trim() : '';
}

/**
 * Reads Claude's data export (`conversations.json`: an array of conversations with `uuid`, `name`,
 * `created_at` and `chat_messages`, each `{ sender: 'human' | 'assistant', text, content, created_at }`
 * with ISO times). Messages of another sender and empty ones are counted in `skipped`.
 */
export function parseClaudeExport(
  data: unknown,
  file: string,
  timeZone: string,
  skipped: SkipCounts,
): ImportedConversation[] {
  if (!Array.isArray(data))
    throw new MemError('INVALID_ARGUMENT', `${file}: expected an array of conversations`);
  return data.map((conversation, i) => {
    const where = `${file}: conversation ${i + 1}`;
    if (!isRecord(conversation) || !Array.isArray(conversation['chat_messages']))
      throw new MemError('INVALID_ARGUMENT', `${where}: expected an object with "chat_messages"`);
    const started =
      typeof conversation['created_at'] === 'string'
        ? parseInstant(conversation['created_at'], timeZone)
        : undefined;
    const turns: IngestTurn[] = [];
    for (const message of conversation['chat_messages']) {
      if (!isRecord(message)) throw new MemError('INVALID_ARGUMENT', `${where}: a message is not an object`);
      const sender = message['sender'];
      if (sender !== 'human' && sender !== 'assistant') {
        countSkip(skipped, 'system or tool message');
        continue;
      }
      const text = textOf(message);
      if (text === '') {
        countSkip(skipped, 'empty message');
        continue;
      }
      const given = message['created_at'];
      const own = typeof given === 'string' ? parseInstant(given, timeZone) : undefined;
      // A time that is there but no time is this message's own fault: it alone is left out.
      if (hasValue(given) && own === undefined) {
        countSkip(skipped, BAD_TIME);
        continue;
      }
      const at = own ?? started;
      turns.push({ speaker: sender === 'human' ? USER : ASSISTANT, text, ...(at ? { at } : {}) });
    }
    const name =
      typeof conversation['name'] === 'string' && conversation['name'].trim()
        ? conversation['name']
        : undefined;
    return { title: name ?? `conversation ${i + 1}`, turns };
  });
}

/** Whether parsed JSON looks like Claude's export: conversations with `chat_messages`. */
export function isClaudeExport(data: unknown): boolean {
  return (
    Array.isArray(data) && data.length > 0 && isRecord(data[0]) && Array.isArray(data[0]['chat_messages'])
  );
}
