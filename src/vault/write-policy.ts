// Who may write which layer: the one answer every edge asks before it writes a note (the MCP tools,
// the library's note writes, reflect, imports). A refusal names its rule, so whoever reads it knows
// which door to use instead.
//
// - The persona is the person's: the CLI and hand edits change it, never a model's tool, reflect
//   (unless the person set `allowPersonaEdits` on this device) or an import.
// - Episode notes hold entries that only the entry writer writes (remember, the exchange writer,
//   ingest and import through it): no other write of a model or an import may create, edit, set
//   frontmatter on, move, archive or fill a note there, so no text of theirs becomes lines that
//   parse as someone's entry. Refusing the whole layer is safer than looking for entry-shaped lines
//   in what is written: a note's frontmatter (`date:`) and its folder decide how its lines are
//   read, so a model could otherwise create a note whose harmless text is read as entries later.
// - An import writes its entries through the entry writer and its facts only into notes of its own
//   layers (profile, or notes outside the layers), never into the persona, insights or archive.
//
// The rules are about the note a write names. Link rewrites that follow a move or an archive keep
// every other note's meaning and are mem's own (move-note.ts).
import { MemError } from '../core/errors.js';
import type { Layer } from '../core/types.js';
import { layerOf, type VaultLayout } from './layout.js';

/**
 * Who a write is for: the person (the CLI, a hand edit), a model through a tool (MCP), reflect (a
 * model's operations, validated and written by mem), an import, or a remote (sync: the person's
 * other devices).
 */
export type Author = 'person' | 'model' | 'reflect' | 'import' | 'remote';

/**
 * What the write does to the note it names: `create` it, `edit` its body, set its `frontmatter`,
 * `move` it from or to its path, `archive` it, or add `entries` (the entry writer's appends).
 */
export type WriteAction = 'create' | 'edit' | 'frontmatter' | 'move' | 'archive' | 'entries';

export interface WriteRequest {
  author: Author;
  action: WriteAction;
  /** Vault path of the note the write names */
  path: string;
  layout: VaultLayout;
  /** The person's `allowPersonaEdits` on this device: reflect may then change persona notes */
  allowPersonaEdits?: boolean;
}

/** How a refusal names the author. */
const WHO: Record<Author, string> = {
  person: 'the person',
  model: "a model's tool",
  reflect: 'reflect',
  import: 'an import',
  remote: 'a remote',
};

const VERB: Record<WriteAction, string> = {
  create: 'create',
  edit: 'edit',
  frontmatter: 'change the frontmatter of',
  move: 'move',
  archive: 'archive',
  entries: 'add entries to',
};

/** The layers an import writes its own notes in (a memory graph's profile notes, or its own folders). */
const IMPORT_LAYERS: ReadonlySet<Layer> = new Set(['profile', 'other']);

/** The rule that refuses `request`, as a sentence; undefined when the write is allowed. */
export function writeRefusal(request: WriteRequest): string | undefined {
  const { author, action } = request;
  // The person's own writes, and their other devices' (sync), are theirs in every layer.
  if (author === 'person' || author === 'remote') return undefined;
  const layer = layerOf(request.path, request.layout);
  const who = WHO[author];
  if (layer === 'persona') {
    if (author === 'reflect' && request.allowPersonaEdits) return undefined;
    return `the persona is the person's to write (CLI or hand edits); ${who} may not ${VERB[action]} it${author === 'reflect' ? ' (allowPersonaEdits is off)' : ''}`;
  }
  if (action === 'entries')
    return layer === 'episodes'
      ? undefined
      : `entries go into episode notes only; ${who} may not add them to a ${layer} note`;
  if (layer === 'episodes' && author !== 'reflect')
    return `episode notes are append-only through the entry writer (mem remember / memory_remember); ${who} may not ${VERB[action]} one`;
  if (author === 'import' && !IMPORT_LAYERS.has(layer))
    return `an import writes only its own notes (profile or its own folders); it may not ${VERB[action]} a note in ${layer}`;
  return undefined;
}

/** Whether `request` is allowed. */
export const mayWrite = (request: WriteRequest): boolean => writeRefusal(request) === undefined;

/** Refuses `request` (NOT_ALLOWED, naming the note and the rule) unless the policy allows it. */
export function checkWrite(request: WriteRequest): void {
  const rule = writeRefusal(request);
  if (rule) throw new MemError('NOT_ALLOWED', `${request.path}: ${rule}`);
}
