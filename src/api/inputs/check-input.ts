import type * as z from 'zod/v4';
import { MemError } from '../../core/errors.js';

/**
 * `value` checked against a verb's input schema, or INVALID_ARGUMENT with the first problem's
 * words: the command line exits 2 with them, HTTP answers 400 with them (its routes parse the same
 * schemas), and an MCP tool error shows them.
 */
export function checkInput<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new MemError('INVALID_ARGUMENT', result.error.issues[0]?.message ?? 'invalid input');
}
