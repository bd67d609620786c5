import * as z from 'zod/v4';
import { strictInput, string } from './fields.js';

/**
 * `config set`: one dotted key and its value. The value itself is checked by the config's own
 * schema (core/config/config.ts), which knows each key's type; this checks that a key is a dotted name.
 */
export const configSetFields = {
  key: string('key').regex(/^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/, {
    error: '"key" must be a dotted key such as reflect.maxTokensPerDay',
  }),
  value: z.unknown(),
};

export const configSetInput = strictInput(configSetFields);
