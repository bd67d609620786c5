import { MemError } from '../../core/errors.js';
import { IMPORT_FORMATS } from '../../core/import-formats.js';
import { isChatGptExport } from './chatgpt-export.js';
import { isClaudeExport } from './claude-export.js';
import type { ImportFormat } from './import-types.js';
import { isMemoryGraph } from './memory-graph.js';
import { isVtuberHistory } from './vtuber-history.js';

/** What `mem import` reads, said in every "unknown file" error. */
export const KNOWN_FORMATS =
  "ChatGPT's or Claude's conversations.json, an MCP memory.jsonl, an Open-LLM-VTuber chat history (.json or its folder), or a folder of Markdown journals named by date";

export function unknownFormat(file: string, why: string): MemError {
  return new MemError(
    'INVALID_ARGUMENT',
    `${file}: ${why}; mem import reads ${KNOWN_FORMATS} (--format ${IMPORT_FORMATS.join('|')} forces one; mem ingest reads a plain transcript)`,
  );
}

/** Parses JSON, or says the file is not an export mem import reads. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw unknownFormat(file, `not valid JSON (${(error as Error).message})`);
  }
}

/** The format of one file, from its content (the file name only tells Markdown apart). */
export function detectFileFormat(text: string, file: string): ImportFormat {
  if (/\.(md|markdown)$/i.test(file)) return 'journal';
  if (isMemoryGraph(text)) return 'mcp-memory';
  const data = parseJson(text, file);
  if (isChatGptExport(data)) return 'chatgpt';
  if (isClaudeExport(data)) return 'claude';
  if (isVtuberHistory(data)) return 'vtuber';
  if (Array.isArray(data) && data.length === 0)
    throw unknownFormat(file, 'an empty array holds nothing to import');
  throw unknownFormat(file, 'the content matches no format mem import reads');
}
