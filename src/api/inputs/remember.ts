import * as z from 'zod/v4';
import { moment, nonEmpty, strictInput, string, strings } from './fields.js';

/** What kind of entry a remembered text is. */
export const REMEMBER_KINDS = ['chat', 'event', 'note'] as const;

const importance = () => {
  const error = '"importance" must be a number from 0 to 1';
  return z.number({ error }).min(0, { error }).max(1, { error });
};

/** `remember`: one entry in today's (or `at`'s) episode note. */
export const rememberFields = {
  text: nonEmpty('text').describe('what happened or was said'),
  speaker: string('speaker').optional().describe("who said it, e.g. the user's name"),
  kind: z
    .enum(REMEMBER_KINDS, { error: `"kind" must be one of ${REMEMBER_KINDS.join(', ')}` })
    .optional()
    .describe('chat (default), event or note'),
  importance: importance().optional().describe('0..1 (default: by layer)'),
  tags: strings('tags').optional(),
  at: moment('at').optional().describe('ISO 8601 moment it happened (default: now)'),
};

export const rememberInput = strictInput(rememberFields);
