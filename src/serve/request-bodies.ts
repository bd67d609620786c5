import * as z from 'zod/v4';
import { compileFields } from '../api/inputs/compile.js';
import {
  strictInput as body,
  dayRange,
  flag,
  LAYER_NAMES,
  layerList,
  moment,
  nonEmpty,
  positiveInt,
  string,
} from '../api/inputs/fields.js';
import { recallFields } from '../api/inputs/recall.js';
import { REMEMBER_KINDS, rememberFields } from '../api/inputs/remember.js';
import { isTimeZone } from '../internal.js';

/**
 * The HTTP request bodies and the MCP tools' input schemas: each verb's own input schema
 * (api/inputs/, which the command line checks with too, so a bad value gets the same words and
 * code everywhere) plus what only the edge takes: whose vault (`agent_id`, `user_id`), the settings
 * of a vault a request creates, and `fresh`.
 */

export { body, LAYER_NAMES, layerList, nonEmpty, positiveInt, string };
export const KINDS = REMEMBER_KINDS;

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

/**
 * Over HTTP a read may ask to see the notes as they are on disk now: what the command line sends
 * when it asks a running server, so that its answer is never older than a fresh process's.
 */
const fresh = {
  fresh: flag('fresh')
    .optional()
    .describe('re-read notes changed on disk before answering (default: false; the watcher keeps up)'),
};

/** `POST /recall` */
export const recallBody = body({ ...recallFields, ...fresh, ...ids });

/** `POST /compile` */
export const compileBody = body({ ...compileFields, ...fresh, ...ids });

/** `POST /remember` */
export const rememberBody = body({ ...rememberFields, ...ids, ...settings });

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
  interrupted: flag('interrupted')
    .optional()
    .describe('the user cut the reply off: it is kept as heard, tagged #interrupted'),
  at: moment('at').optional().describe('ISO 8601 moment of the exchange (default: now)'),
  ...ids,
  ...settings,
}).refine((turn) => turn.user_text.trim() !== '' || (turn.assistant_text ?? '').trim() !== '', {
  error: '"user_text" or "assistant_text" must have text',
});

/** MCP `memory_recall`: one vault, so no ids */
export const recallArgs = body(recallFields);

/** MCP `memory_compile` */
export const compileArgs = body(compileFields);

/** MCP `memory_read_note` */
export const readNoteArgs = body({
  path: string('path').describe('vault path, with or without .md, or link text'),
});

/** MCP `memory_remember`: the text and its details; one vault, so no ids */
export const rememberArgs = body(rememberFields);
