import * as z from 'zod/v4';
import { IMPORT_FORMATS } from '../../core/import-formats.js';
import { moment, nonEmpty, strictInput } from './fields.js';

/** `import`: past conversations from a file or folder. */
export const importFields = {
  source: nonEmpty('source').describe('conversations.json, memory.jsonl, a chat history file, or a folder'),
  format: z
    .enum(IMPORT_FORMATS, { error: `"format" must be one of ${IMPORT_FORMATS.join(', ')}` })
    .optional()
    .describe('read the source as this format (default: told from the content)'),
  now: moment('now').optional().describe('when the import runs (default: now)'),
};

export const importInput = strictInput(importFields);
