import * as z from 'zod/v4';
import { dayRange, moment, positiveInt, strictInput, string, strings } from './fields.js';

export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;

/** `compile`: the context document for one turn. */
export const compileFields = {
  message: string('message').describe("this turn's user message"),
  budget: positiveInt('budget').optional().describe('token budget (default: the vault config, 2000)'),
  now: moment('now').optional().describe('ISO 8601 moment of the turn (default: now)'),
  range: dayRange('range')
    .optional()
    .describe('only episode entries of these days (overrides time words in the message)'),
  history: strings('history').optional().describe('earlier turns of the conversation, oldest first'),
  tokenizer: z
    .enum(TOKENIZERS, { error: `"tokenizer" must be ${TOKENIZERS.join(' or ')}` })
    .optional()
    .describe('BPE encoding used to count tokens (default: the vault config)'),
};

export const compileInput = strictInput(compileFields);
