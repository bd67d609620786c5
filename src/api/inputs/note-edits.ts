import * as z from 'zod/v4';
import { nonEmpty, strictInput, string } from './fields.js';

/** Note edits: create a note, edit its body, set its frontmatter, move it, forget it. */

const path = (name: string, what: string) => nonEmpty(name).describe(what);

const properties = (name: string) =>
  z
    .record(z.string(), z.unknown(), { error: `"${name}" must be an object of frontmatter keys and values` })
    .describe('frontmatter keys and their values (strings, numbers, booleans, lists)');

const hash = () =>
  string('hash')
    .regex(/^[0-9a-f]{64}$/, { error: '"hash" must be the 64 hex digits a read of the note gave' })
    .optional()
    .describe("the note's hash from a read: refuses the write if the note changed since");

export const EDIT_MODES = ['append', 'prepend', 'replace_section', 'insert_under'] as const;

export const createNoteFields = {
  path: path('path', 'vault path of the new note, e.g. insights/tea (.md is added)'),
  title: string('title').optional().describe('its title and first heading (default: the file name)'),
  set: properties('set').optional(),
  body: z
    .string({ error: '"body" must be a string' })
    .optional()
    .describe('Markdown written under the title heading'),
};
export const createNoteInput = strictInput(createNoteFields);

export const editNoteFields = {
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
};
export const editNoteInput = strictInput(editNoteFields);

export const setFrontmatterFields = {
  path: path('path', 'vault path or link text of the note'),
  set: properties('set').optional(),
  unset: z
    .array(z.string({ error: '"unset" must be an array of key names' }), {
      error: '"unset" must be an array of key names',
    })
    .optional()
    .describe('frontmatter keys to delete'),
  hash: hash(),
};
export const setFrontmatterInput = strictInput(setFrontmatterFields);

export const moveFields = {
  path: path('path', 'vault path or link text of the note to move'),
  to: path('to', 'its new vault path, e.g. people/Mei (.md is added)'),
};
export const moveInput = strictInput(moveFields);

export const forgetFields = {
  path: path('path', 'vault path or link text of the note to retire'),
  reason: string('reason').optional().describe('why, written as archived_reason (e.g. "moved away")'),
  superseded_by: string('superseded_by')
    .optional()
    .describe(
      'the note that replaces it: the note stays where it is, marked status: superseded with a link to this one, instead of being archived',
    ),
};
export const forgetInput = strictInput(forgetFields);
