import * as z from 'zod/v4';
import {
  createNoteInput,
  editNoteInput,
  forgetInput,
  moveInput,
  setFrontmatterInput,
} from '../../api/inputs/note-edits.js';
import { body, LAYER_NAMES, layerList, nonEmpty, positiveInt } from '../request-bodies.js';

/**
 * Input and output schemas of the MCP tools beyond recall, compile and remember (those share the
 * HTTP bodies in request-bodies.ts). The note edits' inputs are the verbs' own (api/inputs/
 * note-edits.ts, which `mem note` checks with too); inputs refuse unknown fields and name the field
 * in each message; outputs are what `structuredContent` holds, checked by the SDK before it is sent.
 */

/** MCP `memory_create_note` */
export const createNoteArgs = createNoteInput;

/** MCP `memory_edit_note` */
export const editNoteArgs = editNoteInput;

/** MCP `memory_set_frontmatter` */
export const setFrontmatterArgs = setFrontmatterInput;

/** MCP `memory_move` */
export const moveArgs = moveInput;

/** MCP `memory_forget` */
export const forgetArgs = forgetInput;

/** MCP `memory_recent` */
export const recentArgs = body({
  limit: positiveInt('limit').optional().describe('how many notes and entries (default: 10)'),
  layers: layerList().optional().describe('only notes of these layers (default: all but archive)'),
});

/** MCP `memory_backlinks` */
export const backlinksArgs = body({
  path: nonEmpty('path').describe('vault path or link text of the note'),
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
