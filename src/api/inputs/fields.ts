import * as z from 'zod/v4';
import { LAYERS } from '../../core/types.js';
import {
  DAY_FORMAT,
  DAY_PATTERN,
  isDayText,
  isMomentText,
  MOMENT_FORMAT,
} from '../../time/parse-input-time.js';

/**
 * The fields the verbs' input schemas are made of (api/inputs/<verb>.ts). Each message names its
 * field itself (`"k" must be a positive whole number`), so it reads the same wherever it is shown:
 * after `mem:` on the command line (exit 2), as an HTTP 400's error, in an MCP tool error. These
 * modules import only core/ and time/parse-input-time.ts, so the edges may import them directly
 * (scripts/check-layers.mjs) without loading the library.
 */

export const string = (name: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined ? `"${name}" is required and must be a string` : `"${name}" must be a string`,
  });

export const nonEmpty = (name: string) =>
  string(name).refine((value) => value.trim() !== '', { error: `"${name}" must not be empty` });

export const positiveInt = (name: string) => {
  const error = `"${name}" must be a positive whole number`;
  return z.number({ error }).int({ error }).positive({ error });
};

export const flag = (name: string) => z.boolean({ error: `"${name}" must be true or false` });

export const strings = (name: string) =>
  z.array(z.string({ error: `"${name}" must be an array of strings` }), {
    error: `"${name}" must be an array of strings`,
  });

/**
 * A moment stays text: the vault reads it in its own time zone when it names no offset, so a host
 * in a UTC container can send its user's clock.
 */
export const moment = (name: string) =>
  string(name).refine(isMomentText, { error: `"${name}" must be ${MOMENT_FORMAT}` });

/** A day `YYYY-MM-DD` that exists. */
export const day = (name: string) =>
  string(name)
    // The pattern stays in the JSON Schema an MCP client shows its model.
    .regex(DAY_PATTERN, { error: `"${name}" must be ${DAY_FORMAT}` })
    .refine(isDayText, { error: `"${name}" must be ${DAY_FORMAT}` });

/** Inclusive days, `from` not after `to`; the field is named in every message. */
export const dayRange = (name: string) =>
  z
    .strictObject(
      { from: day(`${name}.from`), to: day(`${name}.to`) },
      { error: `"${name}" must be {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}` },
    )
    .refine((range) => range.from <= range.to, { error: `"${name}.from" is after "${name}.to"` });

export const LAYER_NAMES = LAYERS as readonly [
  'persona',
  'profile',
  'episodes',
  'insights',
  'archive',
  'other',
];

export const layerList = (name = 'layers') =>
  z.array(z.enum(LAYER_NAMES, { error: `"${name}" must list layers of ${LAYER_NAMES.join(', ')}` }), {
    error: `"${name}" must be an array of layer names`,
  });

/**
 * An input that refuses fields it does not know: a typo (`"limt"`) would otherwise be dropped
 * without a word and the default used instead.
 */
export const strictInput = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')}; expected ${Object.keys(shape).join(', ')}`
        : undefined,
  });
