// A note reference as a caller gives it: a vault path with or without `.md` (`profile/user.md`,
// `profile/user`), with the `./` or `/` a shell or a URL leaves in front, or link text resolved
// from the vault root (`Tokyo`). Every verb that takes one (note, links, backlinks, history,
// update, mv, forget) reads it here, beside the vault's path rules: the Vault normalised it three
// ways (one form stripped a leading `./` then `/`, one either but not both, one only `./`).

import { expectString } from '../../core/errors.js';
import { notePath } from '../paths.js';

/** `ref` in the form every lookup uses: NFC, without leading `./` and `/`. */
export function cleanNoteRef(ref: string): string {
  expectString(ref, 'a note reference');
  return ref.normalize('NFC').replace(/^(?:\.?\/)+/, '');
}

/** The vault path `ref` names taken as a path: `profile/user` is `profile/user.md` (see notePath). */
export function noteRefPath(ref: string): string {
  return notePath(cleanNoteRef(ref));
}

/** `ref` as link text, the way Obsidian resolves `[[ref]]` from the vault root: without `.md`. */
export function noteRefLink(ref: string): string {
  return cleanNoteRef(ref).replace(/\.md$/i, '');
}
