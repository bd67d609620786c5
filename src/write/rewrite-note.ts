// The one tail of a write that changes one existing note in place (note set, note edits): under the
// write plan, re-read the note, refuse a hand edit made since the caller read it, write the new text
// with compare-and-swap, and commit only that path.
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { WriteCommit } from '../git/commit-write.js';
import { readForWrite, writeAtomic } from '../vault/write-note.js';
import { underPlan } from './write-plan.js';

export interface NoteWriteResult extends WriteCommit {
  /** Vault path of the note */
  path: string;
  /** Whether the file changed (setting a key to the value it has changes nothing) */
  changed: boolean;
  /** The note's `id` (create only) */
  id?: string;
}

export interface NoteRewrite {
  /** The note's absolute path and its vault path */
  abs: string;
  rel: string;
  /** The commit message, also the write plan's name */
  message: string;
  /** The hash the caller read; a note that no longer has it is a CONFLICT (default: as read now) */
  expectedHash?: string | undefined;
  /** The note's new text from its current text */
  change: (text: string) => string;
}

/** Rewrites one note as `change` says; a change that leaves the text as it is writes nothing. */
export function rewriteNote(root: string, config: MemConfig, note: NoteRewrite): Promise<NoteWriteResult> {
  const { abs, rel, message } = note;
  return underPlan(root, config, message, async (steps) => {
    const read = await readForWrite(abs);
    if (read === undefined) throw new MemError('NOT_FOUND', `${rel}: no such note in the vault`);
    const expected = note.expectedHash ?? read.hash;
    if (read.hash !== expected) {
      throw new MemError('CONFLICT', `${rel} changed on disk since it was read; nothing was written`);
    }
    const next = note.change(read.text);
    if (next === read.text) {
      // Nothing to write, but the same change killed before its commit leaves that commit to make.
      const finished = await steps.commit([], message);
      if (finished.committed) return { path: rel, changed: false, ...finished };
      return { path: rel, changed: false, committed: false, code: 'no-change', reason: 'no change' };
    }
    await steps.record([rel], message);
    await writeAtomic(abs, next, { expectedHash: expected, label: rel });
    const commit = await steps.commit([rel], message);
    return { path: rel, changed: true, ...commit };
  });
}
