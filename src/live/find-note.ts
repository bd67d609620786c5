// Which note a reference names: a vault path (with or without `.md`) or link text resolved from the
// vault root, as Obsidian resolves `[[ref]]`; stricter for the verbs that change or remove a note.
import { MemError } from '../core/errors.js';
import type { Note } from '../core/types.js';
import { readPendingPlan } from '../git/pending-plan.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { cleanNoteRef, noteRefLink, noteRefPath } from '../vault/links/note-ref.js';

/** The note `ref` names; NOT_FOUND when none does. */
export function findNote(index: VaultIndex, ref: string): Note {
  const clean = cleanNoteRef(ref);
  const direct = index.notes.get(clean) ?? index.notes.get(`${clean}.md`);
  if (direct) return direct;
  const resolved = index.graph.resolve(noteRefLink(ref), '');
  const note = resolved ? index.notes.get(resolved) : undefined;
  if (!note) throw new MemError('NOT_FOUND', `note not found: ${ref}`);
  return note;
}

/**
 * Like findNote(), for verbs that change or remove a note: a name that more than one note answers
 * to (`Mei` for `people/Mei.md` and `work/Mei.md`) is refused with the candidates, never guessed.
 */
export function findNoteToWrite(index: VaultIndex, ref: string): Note {
  const note = findNote(index, ref);
  const clean = noteRefLink(ref);
  if (index.notes.has(clean) || index.notes.has(`${clean}.md`)) return note;
  const wanted = `/${clean}.md`.toLowerCase();
  const candidates = [...index.notes.keys()].filter((path) => `/${path}`.toLowerCase().endsWith(wanted));
  if (candidates.length > 1) {
    throw new MemError(
      'INVALID_ARGUMENT',
      `${ref} is ambiguous: ${candidates.sort().join(', ')}; give the note's path`,
    );
  }
  return note;
}

/**
 * The path a verb that moves or removes a note acts on: the note `ref` names (see findNoteToWrite),
 * or, when none does but a killed run left a plan uncommitted, `ref` as a path, so the verb run
 * again can find its own plan done but for the commit, and commit it.
 */
export async function pathToWrite(root: string, index: VaultIndex, ref: string): Promise<string> {
  // A path the plan moved or deleted, not a link that now resolves elsewhere (into archive/).
  const path = noteRefPath(ref);
  if (!index.notes.has(path) && (await readPendingPlan(root))?.paths.includes(path)) return path;
  return findNoteToWrite(index, ref).path;
}
