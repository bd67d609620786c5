import * as z from 'zod/v4';
import { DAY_FORMAT, DAY_PATTERN, isDayText, isMomentText, isTimeZone, MOMENT_FORMAT } from '../index.js';

/**
 * One zod schema per request body: the HTTP routes validate with them (400 naming the field) and
 * the MCP tools take them as their input schema. Messages name the field themselves, so they read
 * the same in an HTTP error and an MCP tool error.
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

/**
 * A moment stays text: the vault reads it in its own time zone when it names no offset, so a host
 * in a UTC container can send its user's clock. Checked here, so a bad one is a 400 naming the field.
 */
export const moment = (name: string) =>
  string(name).refine(isMomentText, { error: `"${name}" must be ${MOMENT_FORMAT}` });

/**
 * A body that refuses fields it does not know: a typo (`"limt"`) would otherwise be dropped
 * without a word and the default used instead.
 */
export const body = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')}; expected ${Object.keys(shape).join(', ')}`
        : undefined,
  });

/** Whose vault a request is about, with `--vaults DIR`; checked as folder names by the vault pool. */
const ids = {
  agent_id: string('agent_id').optional().describe('the agent whose vault to use (default: "default")'),
  user_id: string('user_id').optional().describe('the user whose vault to use (default: "default")'),
};

/** A speaker's name as written in entries: one line, no control characters, at most 64 characters. */
const speakerName = (name: string) =>
  string(name).refine((value) => value.trim() !== '' && value.length <= 64 && !/\p{Cc}/u.test(value), {
    error: `"${name}" must be one line of 1 to 64 characters`,
  });

/**
 * Settings for the vault a request creates (`--vaults`): applied only then; on an existing vault
 * they must be the vault's own (else 409), so a vault's config is never rewritten by a request.
 */
const settings = {
  settings: z
    .strictObject(
      {
        timezone: string('settings.timezone')
          .refine(isTimeZone, {
            error: '"settings.timezone" must be an IANA time zone such as "Asia/Shanghai" or "UTC"',
          })
          .optional(),
        user_name: speakerName('settings.user_name').optional(),
        assistant_name: speakerName('settings.assistant_name').optional(),
      },
      { error: '"settings" must be {"timezone"?, "user_name"?, "assistant_name"?}' },
    )
    .optional()
    .describe("settings of a vault this request creates: time zone and the speakers' names"),
};

export const KINDS = ['chat', 'event', 'note'] as const;

/** A day `YYYY-MM-DD` that exists, by the rule every edge uses (the CLI's --from and --to too). */
const day = (name: string) =>
  string(name)
    // The pattern stays in the JSON Schema an MCP client shows its model.
    .regex(DAY_PATTERN, { error: `"${name}" must be ${DAY_FORMAT}` })
    .refine(isDayText, { error: `"${name}" must be ${DAY_FORMAT}` });

export const LAYER_NAMES = ['persona', 'profile', 'episodes', 'insights', 'archive', 'other'] as const;

/** Inclusive days, `from` not after `to`; the field is named in every message. */
const dayRange = (name: string) =>
  z
    .strictObject(
      { from: day(`${name}.from`), to: day(`${name}.to`) },
      { error: `"${name}" must be {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}` },
    )
    .refine((range) => range.from <= range.to, { error: `"${name}.from" is after "${name}.to"` });

export const layerList = () =>
  z.array(z.enum(LAYER_NAMES, { error: `"layers" must list layers of ${LAYER_NAMES.join(', ')}` }), {
    error: '"layers" must be an array of layer names',
  });

const recall = {
  query: string('query').describe('what to look for'),
  k: positiveInt('k').optional().describe('how many results (default: 8)'),
  now: moment('now')
    .optional()
    .describe('ISO 8601 moment recency and time words are measured from (default: now)'),
  layers: layerList().optional().describe('only these layers (default: all)'),
  range: dayRange('range')
    .optional()
    .describe('only episode entries of these days (overrides time words in the query)'),
  all: z
    .boolean({ error: '"all" must be true or false' })
    .optional()
    .describe('include superseded and archived notes'),
};

const compile = {
  message: string('message').describe("this turn's user message"),
  budget: positiveInt('budget').optional().describe('token budget (default: the vault config, 2000)'),
  now: moment('now').optional().describe('ISO 8601 moment of the turn (default: now)'),
  range: dayRange('range')
    .optional()
    .describe('only episode entries of these days (overrides time words in the message)'),
  history: z
    .array(z.string({ error: '"history" must be an array of strings' }), {
      error: '"history" must be an array of strings',
    })
    .optional()
    .describe('earlier turns of the conversation, oldest first'),
  tokenizer: z
    .enum(['o200k_base', 'cl100k_base'], { error: '"tokenizer" must be o200k_base or cl100k_base' })
    .optional()
    .describe('BPE encoding used to count tokens (default: the vault config)'),
};

/**
 * Over HTTP a read may ask to see the notes as they are on disk now: what the command line sends
 * when it asks a running server, so that its answer is never older than a fresh process's.
 */
const fresh = {
  fresh: z
    .boolean({ error: '"fresh" must be true or false' })
    .optional()
    .describe('re-read notes changed on disk before answering (default: false; the watcher keeps up)'),
};

const remember = {
  text: nonEmpty('text').describe('what happened or was said'),
  speaker: string('speaker').optional().describe("who said it, e.g. the user's name"),
  kind: z
    .enum(KINDS, { error: `"kind" must be one of ${KINDS.join(', ')}` })
    .optional()
    .describe('chat (default), event or note'),
};

/** `POST /recall` */
export const recallBody = body({ ...recall, ...fresh, ...ids });

/** `POST /compile` */
export const compileBody = body({ ...compile, ...fresh, ...ids });

/** What `/remember` and MCP `memory_remember` take beyond the text: how much it matters, tags, when. */
const rememberDetails = {
  importance: z
    .number({ error: '"importance" must be a number from 0 to 1' })
    .min(0, { error: '"importance" must be a number from 0 to 1' })
    .max(1, { error: '"importance" must be a number from 0 to 1' })
    .optional()
    .describe('0..1 (default: by layer)'),
  tags: z
    .array(z.string({ error: '"tags" must be an array of strings' }), {
      error: '"tags" must be an array of strings',
    })
    .optional(),
  at: moment('at').optional().describe('ISO 8601 moment it happened (default: now)'),
};

/** `POST /remember` */
export const rememberBody = body({
  ...remember,
  ...rememberDetails,
  ...ids,
  ...settings,
});

/** `POST /memory/search` (the companion contract) */
export const memorySearchBody = body({
  query: string('query').describe('what to look for'),
  limit: positiveInt('limit').optional().describe('how many results (default: 8)'),
  time_range: dayRange('time_range')
    .optional()
    .describe(
      'only episodes of these days (overrides time words in the query); other layers are not date-filtered',
    ),
  layers: layerList()
    .optional()
    .describe('only these layers (default: every layer but persona, which is the system prompt)'),
  now: moment('now')
    .optional()
    .describe('ISO 8601 moment recency and time words are measured from (default: now)'),
  ...ids,
});

export const COMMIT_MODES = ['exchange', 'user', 'none'] as const;

/** `POST /memory/add` (the companion contract): one chat turn */
export const memoryAddBody = body({
  user_text: string('user_text').describe('what the user said'),
  assistant_text: string('assistant_text').optional().describe('what the assistant answered'),
  commit: z
    .enum(COMMIT_MODES, { error: `"commit" must be one of ${COMMIT_MODES.join(', ')}` })
    .optional()
    .describe('what is kept: both sides (exchange), the user only (user), nothing (none); default: config'),
  interrupted: z
    .boolean({ error: '"interrupted" must be true or false' })
    .optional()
    .describe('the user cut the reply off: it is kept as heard, tagged #interrupted'),
  at: moment('at').optional().describe('ISO 8601 moment of the exchange (default: now)'),
  ...ids,
  ...settings,
}).refine((turn) => turn.user_text.trim() !== '' || (turn.assistant_text ?? '').trim() !== '', {
  error: '"user_text" or "assistant_text" must have text',
});

/** MCP `memory_recall`: one vault, so no ids */
export const recallArgs = body(recall);

/** MCP `memory_compile` */
export const compileArgs = body(compile);

/** MCP `memory_read_note` */
export const readNoteArgs = body({
  path: string('path').describe('vault path, with or without .md, or link text'),
});

/** MCP `memory_remember`: the text and its details; one vault, so no ids */
export const rememberArgs = body({ ...remember, ...rememberDetails });
