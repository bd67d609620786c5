import { MemError } from '../../core/errors.js';
import { parseInstant } from '../../time/parse-instant.js';

/** One turn of an imported conversation. */
export interface TranscriptTurn {
  speaker?: string;
  text: string;
  /** When it was said, if the transcript says */
  at?: Date;
}

/** Roles that are not part of the conversation a person had. */
const SKIPPED_ROLES = new Set(['system', 'tool', 'function', 'developer']);

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  // OpenAI-style content parts: [{ type: 'text', text: '…' }, { type: 'image_url', … }]
  if (Array.isArray(content)) {
    const parts = content
      .map((part) => (typeof part === 'string' ? part : (part as { text?: unknown })?.text))
      .filter((t): t is string => typeof t === 'string');
    return parts.length > 0 ? parts.join('\n') : undefined;
  }
  return undefined;
}

/** A turn's time; a timestamp without an offset is read in the vault's `timeZone`. */
function timeOf(value: unknown, timeZone: string): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Epoch seconds are ten digits until 2286; anything larger is milliseconds.
    return new Date(value < 1e11 ? value * 1000 : value);
  }
  if (typeof value === 'string' && value.trim() !== '') return parseInstant(value, timeZone);
  return undefined;
}

function turnOf(value: unknown, where: string, timeZone: string): TranscriptTurn | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new MemError('INVALID_ARGUMENT', `${where}: expected an object with role/speaker and content/text`);
  }
  const record = value as Record<string, unknown>;
  const role = record['speaker'] ?? record['role'] ?? record['name'];
  if (typeof role === 'string' && SKIPPED_ROLES.has(role.toLowerCase())) return undefined;
  const text = textOf(record['content'] ?? record['text'] ?? record['message']);
  if (text === undefined) throw new MemError('INVALID_ARGUMENT', `${where}: no "content" or "text" string`);
  if (text.trim() === '') return undefined;
  const at = timeOf(
    record['timestamp'] ?? record['time'] ?? record['created_at'] ?? record['date'],
    timeZone,
  );
  return {
    text,
    ...(typeof role === 'string' && role.trim() ? { speaker: role.trim() } : {}),
    ...(at ? { at } : {}),
  };
}

function binary(file: string): MemError {
  return new MemError('INVALID_ARGUMENT', `${file}: looks like a binary file, not a transcript`);
}

/**
 * File name endings a transcript has. Any other named file is refused: a source file's
 * `def main():` lines read as `Speaker: text` turns, and `ingest app.py` imported its code as a chat.
 */
export const TRANSCRIPT_EXTENSIONS = [
  '.json',
  '.jsonl',
  '.ndjson',
  '.txt',
  '.text',
  '.log',
  '.md',
  '.markdown',
];

/** Refuses (INVALID_ARGUMENT) a file whose name ends in anything but a transcript's extension (or none). */
export function checkTranscriptName(file: string): void {
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return;
  const extension = name.slice(dot).toLowerCase();
  if (!TRANSCRIPT_EXTENSIONS.includes(extension)) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${file}: a ${extension} file is not a transcript; ingest reads ${TRANSCRIPT_EXTENSIONS.join(', ')} files (or a name without an extension)`,
    );
  }
}

/**
 * A transcript file's bytes as text; refuses (INVALID_ARGUMENT) a name that is not a transcript's
 * (`checkTranscriptName`) and bytes that are not UTF-8 or hold a NUL, which a text transcript
 * never does: an image or archive would otherwise be imported as garbage.
 */
export function decodeTranscript(bytes: Uint8Array, file: string): string {
  checkTranscriptName(file);
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, as readFile does; parseTranscript drops it.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw binary(file);
  }
  if (text.includes('\0')) throw binary(file);
  return text;
}

/**
 * Reads a chat transcript in any of three forms: a JSON array of messages (or `{ "messages": [...] }`),
 * JSONL with one message per line, or plain text with one `Speaker: text` per line (lines without a
 * speaker continue the previous turn). Timestamps without an offset are read in `timeZone` (the
 * vault's), so the same file gives the same turns on every machine.
 */
export function parseTranscript(text: string, file: string, timeZone: string): TranscriptTurn[] {
  if (text.includes('\0')) throw binary(file);
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body === '') return [];
  if (body.startsWith('[') || (body.startsWith('{') && /^\{\s*"messages"\s*:/.test(body))) {
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch (error) {
      throw new MemError('INVALID_ARGUMENT', `${file}: not valid JSON (${(error as Error).message})`);
    }
    const list = Array.isArray(data) ? data : (data as { messages?: unknown }).messages;
    if (!Array.isArray(list))
      throw new MemError('INVALID_ARGUMENT', `${file}: expected an array of messages`);
    return list
      .map((m, i) => turnOf(m, `${file}: message ${i + 1}`, timeZone))
      .filter((t): t is TranscriptTurn => t !== undefined);
  }
  const lines = body.split(/\r?\n/);
  if (body.startsWith('{')) {
    return lines.flatMap((line, i) => {
      if (line.trim() === '') return [];
      let data: unknown;
      try {
        data = JSON.parse(line);
      } catch {
        throw new MemError('INVALID_ARGUMENT', `${file}:${i + 1}: not valid JSON`);
      }
      const turn = turnOf(data, `${file}:${i + 1}`, timeZone);
      return turn ? [turn] : [];
    });
  }
  const turns: TranscriptTurn[] = [];
  for (const line of lines) {
    const match = /^\s*(?:\[([^\]]+)\]\s*)?([^:：]{1,40}?)\s*[:：]\s?(.*)$/.exec(line);
    const at = match?.[1] ? timeOf(match[1], timeZone) : undefined;
    if (match && !/^https?$/i.test(match[2] ?? '')) {
      turns.push({ speaker: match[2]!.trim(), text: match[3] ?? '', ...(at ? { at } : {}) });
    } else if (turns.length > 0 && line.trim() !== '') {
      const last = turns[turns.length - 1]!;
      last.text = `${last.text}\n${line.trim()}`;
    } else if (line.trim() !== '') {
      turns.push({ text: line.trim() });
    }
  }
  return turns.filter((t) => t.text.trim() !== '');
}
