import { MemError } from '../../core/errors.js';
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
 * Content types that hold what was said. The rest are a model's tool traffic or hidden
 * reasoning (`code`, `execution_output`, `thoughts`, `reasoning_recap`, `tether_quote`…) or the
 * user's custom instructions (`user_editable_context`): not part of the conversation a person had.
 */
const SPOKEN = new Set(['text', 'multimodal_text']);

/** Why a message of another content type is left out, as the summary says it. */
const UNSPOKEN: Record<string, string> = {
  user_editable_context: 'custom instructions',
  thoughts: 'hidden reasoning',
  reasoning_recap: 'hidden reasoning',
  code: 'tool call or output',
  execution_output: 'tool call or output',
  tether_quote: 'tool call or output',
  tether_browsing_display: 'tool call or output',
  system_error: 'tool call or output',
};

/** Unix seconds (a float in the export) as a Date; an Invalid Date for a value that is no such time. */
function timeOf(value: unknown): Date | undefined {
  if (!hasValue(value)) return undefined;
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? new Date(value * 1000)
    : new Date(Number.NaN);
}

/**
 * The node ids of the branch the user last saw: from `current_node` up through `parent` to the
 * root, reversed. An edited prompt or a regenerated answer leaves its siblings in `mapping`;
 * walking every node would import each version of the turn.
 */
function branchOf(mapping: Record<string, unknown>, current: string, where: string): string[] {
  const path: string[] = [];
  const visited = new Set<string>();
  let id: string | undefined = current;
  while (id !== undefined) {
    if (visited.has(id))
      throw new MemError('INVALID_ARGUMENT', `${where}: the mapping's parents form a loop at ${id}`);
    visited.add(id);
    const node: unknown = mapping[id];
    if (!isRecord(node))
      throw new MemError(
        'INVALID_ARGUMENT',
        `${where}: current_node or a parent names ${id}, which is not in mapping`,
      );
    path.push(id);
    id = typeof node['parent'] === 'string' ? node['parent'] : undefined;
  }
  return path.reverse();
}

/** The leaf a conversation without `current_node` ends on: follow the last child from the root. */
function lastLeaf(mapping: Record<string, unknown>): string | undefined {
  const root = Object.keys(mapping).find((id) => {
    const node = mapping[id];
    return isRecord(node) && (node['parent'] === null || node['parent'] === undefined);
  });
  let id = root;
  const visited = new Set<string>();
  while (id !== undefined && !visited.has(id)) {
    visited.add(id);
    const node = mapping[id];
    const children = isRecord(node) && Array.isArray(node['children']) ? node['children'] : [];
    const next = children.at(-1);
    if (typeof next !== 'string') break;
    id = next;
  }
  return id;
}

function turnOf(node: Record<string, unknown>, skipped: SkipCounts): IngestTurn | undefined {
  const message = node['message'];
  // The root node of every conversation has no message.
  if (!isRecord(message)) return undefined;
  const author = isRecord(message['author']) ? message['author'] : {};
  const role = author['role'];
  if (role !== 'user' && role !== 'assistant') {
    countSkip(skipped, 'system or tool message');
    return undefined;
  }
  const metadata = isRecord(message['metadata']) ? message['metadata'] : {};
  if (metadata['is_visually_hidden_from_conversation'] === true) {
    countSkip(skipped, 'hidden message');
    return undefined;
  }
  // A message the assistant addressed to a tool (`recipient: "browser"`) is a call, not a reply.
  if (typeof message['recipient'] === 'string' && message['recipient'] !== 'all') {
    countSkip(skipped, 'system or tool message');
    return undefined;
  }
  const content = isRecord(message['content']) ? message['content'] : {};
  if (!SPOKEN.has(String(content['content_type']))) {
    const type = String(content['content_type']);
    countSkip(skipped, UNSPOKEN[type] ?? `${type} content`);
    return undefined;
  }
  const parts = Array.isArray(content['parts']) ? content['parts'] : [];
  // Images and files are objects among the parts (asset pointers); the words are the strings, and
  // in a voice conversation the `audio_transcription` parts' text.
  const text = parts
    .map((p) =>
      typeof p === 'string'
        ? p
        : isRecord(p) && p['content_type'] === 'audio_transcription'
          ? p['text']
          : undefined,
    )
    .filter((p): p is string => typeof p === 'string')
    .join('\n')
    .trim();
  if (text === '') {
    countSkip(skipped, 'empty message');
    return undefined;
  }
  const at = timeOf(message['create_time']);
  // A time that is there but no time is this message's own fault: it alone is left out.
  if (at && Number.isNaN(at.getTime())) {
    countSkip(skipped, BAD_TIME);
    return undefined;
  }
  return { speaker: role === 'user' ? USER : ASSISTANT, text, ...(at ? { at } : {}) };
}

/**
 * Reads ChatGPT's data export (`conversations.json`: an array of conversations, each a `mapping`
 * tree of message nodes and the `current_node` it ended on). Only the branch ending at
 * `current_node` is read; system, tool, hidden and empty messages are counted in `skipped`.
 * A message without a time takes its conversation's `create_time`.
 */
export function parseChatGptExport(data: unknown, file: string, skipped: SkipCounts): ImportedConversation[] {
  if (!Array.isArray(data))
    throw new MemError('INVALID_ARGUMENT', `${file}: expected an array of conversations`);
  return data.map((conversation, i) => {
    const where = `${file}: conversation ${i + 1}`;
    if (!isRecord(conversation) || !isRecord(conversation['mapping']))
      throw new MemError('INVALID_ARGUMENT', `${where}: expected an object with "mapping"`);
    const mapping = conversation['mapping'];
    const current =
      typeof conversation['current_node'] === 'string' ? conversation['current_node'] : lastLeaf(mapping);
    const onBranch = current === undefined ? [] : branchOf(mapping, current, where);
    const messages = Object.values(mapping).filter((n) => isRecord(n) && isRecord(n['message'])).length;
    const read = onBranch.filter((id) =>
      isRecord((mapping[id] as Record<string, unknown>)['message']),
    ).length;
    countSkip(skipped, 'edited or regenerated branch', messages - read);
    const given = timeOf(conversation['create_time']);
    // A conversation's time that is no time dates none of its messages (each then needs its own).
    const started = given && !Number.isNaN(given.getTime()) ? given : undefined;
    const turns = onBranch
      .map((id) => turnOf(mapping[id] as Record<string, unknown>, skipped))
      .filter((t): t is IngestTurn => t !== undefined)
      .map((t) => (t.at || !started ? t : { ...t, at: started }));
    const title = typeof conversation['title'] === 'string' ? conversation['title'] : `conversation ${i + 1}`;
    return { title, turns };
  });
}

/** Whether parsed JSON looks like ChatGPT's export: conversations with a `mapping`. */
export function isChatGptExport(data: unknown): boolean {
  return Array.isArray(data) && data.length > 0 && isRecord(data[0]) && isRecord(data[0]['mapping']);
}
