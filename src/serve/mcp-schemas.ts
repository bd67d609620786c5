import * as z from 'zod/v4';
import { body, LAYER_NAMES, layerList, nonEmpty, positiveInt, string } from './request-bodies.js';

/**
 * Input and output schemas of the MCP tools beyond recall, compile and remember (those share the
 * HTTP bodies in request-bodies.ts). Inputs refuse unknown fields and name the field in each
 * message; outputs are what `structuredContent` holds, checked by the SDK before it is sent.
 */

const path = (name: string, what: string) => nonEmpty(name).describe(what);

const properties = (name: string) =>
  z
    .record(z.string(), z.unknown(), { error: `"${name}" must be an object of frontmatter keys and values` })
    .describe('frontmatter keys and their values (strings, numbers, booleans, lists)');

/** MCP `memory_create_note` */
export const createNoteArgs = body({
  path: path('path', 'vault path of the new note, e.g. insights/tea (.md is added)'),
  title: string('title').optional().describe('its title and first heading (default: the file name)'),
  set: properties('set').optional(),
  body: z
    .string({ error: '"body" must be a string' })
    .optional()
    .describe('Markdown written under the title heading'),
});

const hash = () =>
  string('hash')
    .regex(/^[0-9a-f]{64}$/, { error: '"hash" must be the 64 hex digits memory_read_note gave' })
    .optional()
    .describe("the note's hash from memory_read_note: refuses the write if the note changed since");

export const EDIT_MODES = ['append', 'prepend', 'replace_section', 'insert_under'] as const;

/** MCP `memory_edit_note` */
export const editNoteArgs = body({
  path: path('path', 'vault path or link text of the note'),
  mode: z
    .enum(EDIT_MODES, { error: `"mode" must be one of ${EDIT_MODES.join(', ')}` })
    .describe(
      'append: at the end; prepend: after the frontmatter and title heading; replace_section: the body under `heading` up to the next heading of its level or higher becomes `text`; insert_under: after the last line directly under `heading`',
    ),
  heading: string('heading')
    .optional()
    .describe("the heading's text, for replace_section and insert_under (with or without its # marks)"),
  text: z.string({ error: '"text" must be a string' }).describe('Markdown to write'),
  hash: hash(),
});

/** MCP `memory_set_frontmatter` */
export const setFrontmatterArgs = body({
  path: path('path', 'vault path or link text of the note'),
  set: properties('set').optional(),
  unset: z
    .array(z.string({ error: '"unset" must be an array of key names' }), {
      error: '"unset" must be an array of key names',
    })
    .optional()
    .describe('frontmatter keys to delete'),
  hash: hash(),
});

/** MCP `memory_move` */
export const moveArgs = body({
  path: path('path', 'vault path or link text of the note to move'),
  to: path('to', 'its new vault path, e.g. people/Mei (.md is added)'),
});

/** MCP `memory_forget` */
export const forgetArgs = body({
  path: path('path', 'vault path or link text of the note to retire'),
  reason: string('reason').optional().describe('why, written as archived_reason (e.g. "moved away")'),
  superseded_by: string('superseded_by')
    .optional()
    .describe(
      'the note that replaces it: the note stays where it is, marked status: superseded with a link to this one, instead of being archived',
    ),
});

/** MCP `memory_recent` */
export const recentArgs = body({
  limit: positiveInt('limit').optional().describe('how many notes and entries (default: 10)'),
  layers: layerList().optional().describe('only notes of these layers (default: all but archive)'),
});

/** MCP `memory_backlinks` */
export const backlinksArgs = body({
  path: path('path', 'vault path or link text of the note'),
});

const edge = z.object({ from: z.string(), to: z.string().optional(), link: z.string(), line: z.number() });

/** What a note read gives besides its Markdown text. */
export const noteOutput = z.object({
  path: z.string(),
  title: z.string(),
  layer: z.enum(LAYER_NAMES),
  frontmatter: z.record(z.string(), z.unknown()),
  hash: z.string().describe('sha256 of the file'),
  markdown: z.string().describe('the note as written, Obsidian comments left out'),
  links: z.array(edge),
  backlinks: z.array(edge),
});

export const backlinksOutput = z.object({ path: z.string(), backlinks: z.array(edge) });

export const recentOutput = z.object({
  notes: z.array(
    z.object({ path: z.string(), title: z.string(), layer: z.enum(LAYER_NAMES), modified: z.string() }),
  ),
  entries: z.array(
    z.object({
      link: z.string(),
      date: z.string(),
      time: z.string().optional(),
      speaker: z.string().optional(),
      text: z.string(),
    }),
  ),
});

const commit = {
  committed: z.boolean().describe('whether git recorded the change'),
  sha: z.string().optional(),
  reason: z.string().optional().describe('why nothing was committed'),
};

export const rememberOutput = z.object({
  path: z.string(),
  link: z.string().describe('citation of the new entry, e.g. [[2026-11-30#^e7]]'),
  redacted: z.number().describe('how many secrets were redacted'),
  ...commit,
});

export const noteWriteOutput = z.object({ path: z.string(), changed: z.boolean(), ...commit });

export const moveOutput = z.object({
  from: z.string(),
  to: z.string(),
  rewritten: z.array(z.object({ path: z.string(), links: z.number() })),
  ...commit,
});

export const forgetOutput = z.object({
  path: z.string(),
  supersededBy: z.string().optional().describe('the link written as superseded_by'),
  archivedAt: z.string().optional(),
  rewritten: z.array(z.object({ path: z.string(), links: z.number() })),
  ...commit,
});
