import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MemError, type NoteEdit, type Vault } from '../../internal.js';
import { rememberArgs } from '../request-bodies.js';
import { notePathOf } from '../routes.js';
import { answerWith, commitNote } from './mcp-result.js';
import {
  createNoteArgs,
  editNoteArgs,
  forgetArgs,
  forgetOutput,
  moveArgs,
  moveOutput,
  noteWriteOutput,
  rememberOutput,
  setFrontmatterArgs,
} from './mcp-schemas.js';

/**
 * Writes go through the library's own functions only: each checks the path stays in the vault,
 * refuses to overwrite a hand edit (CONFLICT), commits to git and re-indexes at once. No tool here
 * deletes: forgetting archives the note, so `mem undo` or the archive brings it back. Every write
 * is a model's (`author: 'model'`): the write policy keeps it out of the persona and out of episode
 * notes, where only memory_remember adds entries (vault/write-policy.ts).
 */
const MODEL = 'model' as const;

const commitOf = (result: { committed: boolean; sha?: string; reason?: string }) => ({
  committed: result.committed,
  ...(result.sha ? { sha: result.sha } : {}),
  ...(result.reason ? { reason: result.reason } : {}),
});

/** The library's edit for the tool's flat arguments (a flat `mode` is easier for a model than a union). */
function editOf(mode: string, heading: string | undefined, text: string): NoteEdit {
  if (mode === 'append') return { append: text };
  if (mode === 'prepend') return { prepend: text };
  if (heading === undefined || heading.trim() === '')
    throw new MemError('INVALID_ARGUMENT', `"heading" is required for mode ${mode}`);
  return mode === 'replace_section' ? { replaceSection: heading, text } : { insertUnder: heading, text };
}

/** The write tools, registered in this order (the order a client lists them in). */
const WRITE_TOOLS: Array<(server: McpServer, vault: Vault) => void> = [
  remember,
  createNote,
  setFrontmatter,
  editNote,
  move,
  forget,
];

export function registerWriteTools(server: McpServer, vault: Vault): void {
  for (const register of WRITE_TOOLS) register(server, vault);
}

/** `memory_remember`: an entry in its day's episode note. */
function remember(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_remember',
    {
      title: 'Remember',
      description:
        'Appends an entry to the episode note of its day (today unless `at` says when), git-committed and indexed at once, so the next recall finds it. One self-contained sentence; secrets are redacted.',
      inputSchema: rememberArgs,
      outputSchema: rememberOutput,
      // Each call adds another entry: not idempotent.
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ text, speaker, kind, importance, tags, at }) =>
      answerWith(vault, async () => {
        const result = await vault.remember({ text, speaker, kind, importance, tags, at });
        return {
          text: `remembered ${result.link} in ${result.path}${result.redacted ? ` (${result.redacted} secret${result.redacted === 1 ? '' : 's'} redacted)` : ''}, ${commitNote(result)}`,
          data: { path: result.path, link: result.link, redacted: result.redacted, ...commitOf(result) },
        };
      }),
  );
}

/** `memory_create_note`: a new note, never over one that exists. */
function createNote(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_create_note',
    {
      title: 'Create a note',
      description:
        'Creates a new note with id, title, created and updated in its frontmatter (plus `set`), its title as the first heading and `body` under it; refuses a path that already exists.',
      inputSchema: createNoteArgs,
      outputSchema: noteWriteOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ path, title, set, body }) =>
      answerWith(vault, async () => {
        const result = await vault.createNote({ path: notePathOf(path), title, set, body, author: MODEL });
        return {
          text: `created ${result.path}, ${commitNote(result)}`,
          data: { path: result.path, changed: result.changed, ...commitOf(result) },
        };
      }),
  );
}

/** `memory_set_frontmatter`: frontmatter keys set and deleted, every other byte kept. */
function setFrontmatter(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_set_frontmatter',
    {
      title: 'Set frontmatter',
      description:
        "Sets and deletes frontmatter keys of a note, changing only those keys' lines; the body and every other byte stay as written. Pass the hash memory_read_note gave to refuse the write if someone edited the note since.",
      inputSchema: setFrontmatterArgs,
      outputSchema: noteWriteOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ path, set, unset, hash }) =>
      answerWith(vault, async () => {
        const result = await vault.updateNote(notePathOf(path), {
          set,
          unset,
          expectedHash: hash,
          author: MODEL,
        });
        return {
          text: `${result.changed ? 'updated' : 'unchanged:'} ${result.path}, ${commitNote(result)}`,
          data: { path: result.path, changed: result.changed, ...commitOf(result) },
        };
      }),
  );
}

/** `memory_edit_note`: a body edit (append, prepend, replace_section, insert_under). */
function editNote(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_edit_note',
    {
      title: 'Edit a note',
      description:
        "Edits a note's body: append, prepend (after the title), replace_section (the body under a heading) or insert_under (a heading); every other byte stays as written. Episode notes are append-only: use memory_remember. Pass the hash memory_read_note gave to refuse the write if someone edited the note since.",
      inputSchema: editNoteArgs,
      outputSchema: noteWriteOutput,
      // replace_section overwrites what was under the heading, so a client should ask first.
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ path, mode, heading, text, hash }) =>
      answerWith(vault, async () => {
        const result = await vault.editNote(notePathOf(path), editOf(mode, heading, text), {
          expectedHash: hash,
          author: MODEL,
        });
        return {
          text: `${result.changed ? 'edited' : 'unchanged:'} ${result.path}, ${commitNote(result)}`,
          data: { path: result.path, changed: result.changed, ...commitOf(result) },
        };
      }),
  );
}

/** `memory_move`: a note renamed or moved, every link to it rewritten. */
function move(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_move',
    {
      title: 'Move a note',
      description:
        "Renames or moves a note and rewrites every link to it, keeping each link's style; one commit.",
      inputSchema: moveArgs,
      outputSchema: moveOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ path, to }) =>
      answerWith(vault, async () => {
        const result = await vault.move(notePathOf(path), notePathOf(to), { author: MODEL });
        const links = result.rewritten.reduce((sum, r) => sum + r.links, 0);
        return {
          text: `moved ${result.from} to ${result.to}, ${links} link${links === 1 ? '' : 's'} rewritten in ${result.rewritten.length} note${result.rewritten.length === 1 ? '' : 's'}, ${commitNote(result)}`,
          data: { from: result.from, to: result.to, rewritten: result.rewritten, ...commitOf(result) },
        };
      }),
  );
}

/** `memory_forget`: a note archived, or marked superseded by another. */
function forget(server: McpServer, vault: Vault): void {
  server.registerTool(
    'memory_forget',
    {
      title: 'Forget (archive) a note',
      description:
        'Retires a note that is wrong or outdated: moves it to archive/ with status archived and the reason, and points links at it there; with superseded_by it stays in place, marked superseded by that note. Nothing is deleted; recall leaves it out.',
      inputSchema: forgetArgs,
      outputSchema: forgetOutput,
      // It takes a note out of recall, so a client should ask first; it never deletes (no `hard`).
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ path, reason, superseded_by }) =>
      answerWith(vault, async () => {
        if (superseded_by !== undefined) {
          // Superseding is a frontmatter write, the form reflection gives a replaced insight:
          // recall leaves the note out and follows the link to the one that replaces it.
          const next = vault.note(notePathOf(superseded_by));
          const link = `[[${next.path.replace(/\.md$/, '')}]]`;
          const old = vault.noteToWrite(notePathOf(path));
          if (old.path === next.path)
            throw new MemError('INVALID_ARGUMENT', `${old.path} cannot supersede itself`);
          const result = await vault.updateNote(old.path, {
            set: {
              status: 'superseded',
              superseded_by: link,
              ...(reason ? { superseded_reason: reason } : {}),
            },
            author: MODEL,
          });
          return {
            text: `marked ${result.path} superseded by ${link}, ${commitNote(result)}`,
            data: { path: result.path, supersededBy: link, rewritten: [], ...commitOf(result) },
          };
        }
        const result = await vault.forget(notePathOf(path), { reason, author: MODEL });
        return {
          text: `archived ${result.path} as ${result.archivedAt}, ${commitNote(result)}`,
          data: {
            path: result.path,
            ...(result.archivedAt ? { archivedAt: result.archivedAt } : {}),
            rewritten: result.rewritten,
            ...commitOf(result),
          },
        };
      }),
  );
}
