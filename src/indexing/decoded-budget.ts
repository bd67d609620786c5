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

/** A table holding notes decoded once in the current read (read-twice.ts), dropped when it ends. */
export interface ReadHolder {
  dropHeld(): void;
}

/** Bytes of JSON the notes decoded once in a read may take, for every table together; past it a new read begins */
const READ_BYTES = 2 << 20;

class DecodedBudget {
  /** Bytes of saved JSON (as limits.decodedNotesMiB counts them) the process keeps decoded */
  bound = Number.POSITIVE_INFINITY;
  private kept = 0;
  /**
   * The current read (a recall): a note decoded in one read only is not kept after it
   * (read-twice.ts). Reads run one at a time, as every decode is synchronous.
   */
  read = 1;
  /** The tables holding notes decoded once in this read, and the bytes of those notes */
  private readonly holders = new Set<ReadHolder>();
  private held = 0;
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

  /** A new read begins: what the last one decoded once goes, in every table. */
  newRead(): void {
    this.read = (this.read + 1) >>> 0 || 1;
    for (const holder of this.holders) holder.dropHeld();
    this.holders.clear();
    this.held = 0;
  }

  /**
   * `table` holds `bytes` more of notes decoded once in this read. Past READ_BYTES (or half of
   * `tableBound`, or of the process's bound) a new read begins first: a library caller that never
   * starts one (DECODED_NOTES.newRead) is still bounded, and so are a pool's many tables together.
   */
  hold(holder: ReadHolder, bytes: number, tableBound: number): void {
    if (this.held + bytes > Math.min(READ_BYTES, tableBound / 2, this.bound / 2)) this.newRead();
    this.held += bytes;
    this.holders.add(holder);
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
