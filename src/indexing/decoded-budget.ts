// One bound on the decoded saved notes of every vault a process holds: `mem serve --vaults` loads
// hundreds of vaults, and a bound per vault (limits.decodedNotesMiB) lets each keep what its own
// searches read, so a day of use grew the pool by the sum of them. Each note table keeps its two
// generations as before (note-table.ts) and counts what it keeps here too; when the process has
// kept half its bound since the last turn, every table turns its generations at once: what was
// read since stays one more turn, what was read before goes. Held together, the tables keep at
// most the bound; a table read again soon keeps what it reads, an idle one drops its notes.

/** What a note table does at a turn: its young generation becomes old, the old one is dropped. */
export interface Generational {
  rotate(): void;
}

class DecodedBudget {
  /** Bytes of saved JSON (as limits.decodedNotesMiB counts them) the process keeps decoded */
  bound = Number.POSITIVE_INFINITY;
  private kept = 0;
  private readonly tables = new Set<WeakRef<Generational>>();
  private readonly refs = new WeakMap<Generational, WeakRef<Generational>>();

  /** A table that holds saved notes takes part; weakly, so a table nobody closed still goes. */
  join(table: Generational): void {
    if (this.refs.has(table)) return;
    // Tables collected without a close leave nothing behind (a turn drops them too, when bounded).
    for (const known of this.tables) if (known.deref() === undefined) this.tables.delete(known);
    const ref = new WeakRef(table);
    this.refs.set(table, ref);
    this.tables.add(ref);
  }

  leave(table: Generational): void {
    const ref = this.refs.get(table);
    if (!ref) return;
    this.tables.delete(ref);
    this.refs.delete(table);
  }

  /** `bytes` more kept by one table; past half the bound every table turns. */
  count(bytes: number): void {
    if (this.bound === Number.POSITIVE_INFINITY) return;
    this.kept += bytes;
    if (this.kept > this.bound / 2) this.turn();
  }

  private turn(): void {
    this.kept = 0;
    for (const ref of this.tables) {
      const table = ref.deref();
      if (table) table.rotate();
      else this.tables.delete(ref);
    }
  }
}

/**
 * What `mem serve --vaults` bounds its vaults' decoded notes at together, in MiB of saved JSON
 * (`--decoded-notes-mib`): what one vault may keep by default (limits.decodedNotesMiB), so a pool
 * keeps no more than a server of one vault, however many vaults it loads.
 */
export const POOL_DECODED_NOTES_MIB = 16;

/** The process's bound on decoded notes, shared by every note table (unbounded unless set). */
export const DECODED_NOTES = new DecodedBudget();

/**
 * Bounds every vault's decoded notes in this process together at `mib` MiB of saved JSON
 * (POOL_DECODED_NOTES_MIB when not given); each vault's own limits.decodedNotesMiB still holds.
 */
export function boundDecodedNotes(mib: number = POOL_DECODED_NOTES_MIB): void {
  DECODED_NOTES.bound = mib * 1024 * 1024;
}
