import type { Note } from '../core/types.js';

/** The notes one test holds for (see VaultIndex.facet), by path; `notes` decodes them when read. */
export class Facet {
  /** Member paths, in the order they joined */
  readonly paths = new Set<string>();
  version = 0;
  readonly notes: ReadonlyMap<string, Note>;

  constructor(
    private readonly test: (note: Note) => boolean,
    lookup: (path: string) => Note | undefined,
  ) {
    this.notes = new FacetNotes(this.paths, lookup);
  }

  /** `note` is the note now at `path`, or undefined when it was removed. */
  update(path: string, note: Note | undefined): void {
    const member = note !== undefined && this.test(note);
    if (member) this.paths.add(path);
    else if (!this.paths.delete(path)) return;
    this.version++;
  }

  save(): SavedFacet {
    return { kind: 'facet', paths: [...this.paths] };
  }

  restore(saved: SavedFacet): void {
    for (const path of saved.paths) this.paths.add(path);
  }
}

/** A facet's members as a map of notes, each looked up (and decoded) when read. */
class FacetNotes implements ReadonlyMap<string, Note> {
  constructor(
    private readonly members: Set<string>,
    private readonly lookup: (path: string) => Note | undefined,
  ) {}

  get size(): number {
    return this.members.size;
  }

  get [Symbol.toStringTag](): string {
    return 'FacetNotes';
  }

  has(path: string): boolean {
    return this.members.has(path);
  }

  get(path: string): Note | undefined {
    return this.members.has(path) ? this.lookup(path) : undefined;
  }

  keys(): SetIterator<string> {
    return this.members.values();
  }

  values(): MapIterator<Note> {
    return this.pairs(1) as MapIterator<Note>;
  }

  entries(): MapIterator<[string, Note]> {
    return this.pairs(2) as MapIterator<[string, Note]>;
  }

  [Symbol.iterator](): MapIterator<[string, Note]> {
    return this.entries();
  }

  forEach(callback: (value: Note, key: string, map: ReadonlyMap<string, Note>) => void): void {
    for (const [path, note] of this.entries()) callback(note, path, this);
  }

  private *pairs(shape: 1 | 2): Generator<Note | [string, Note]> {
    for (const path of this.members) {
      const note = this.lookup(path);
      if (note) yield shape === 1 ? note : [path, note];
    }
  }
}

/** keysOf functions whose keys are those of a note's sections, each read alone (see sectionKeys). */
const SECTION_KEYS = new WeakSet<(note: Note) => Iterable<string>>();

/**
 * Marks `keysOf` as giving the keys of a note's sections, each read alone (and of its layer, path
 * and other fields than the sections): then a note with entries appended has the keys it had and
 * those of the new sections, and a tally counts only those (a day of a thousand entries is not
 * walked on every add).
 */
export function sectionKeys<T extends (note: Note) => Iterable<string>>(keysOf: T): T {
  SECTION_KEYS.add(keysOf);
  return keysOf;
}

/** The keys of all notes, counted (see VaultIndex.tally). */
export class Tally {
  readonly keys = new Map<string, number>();
  version = 0;
  private readonly byPath = new Map<string, string[]>();
  private readonly bySection: boolean;

  constructor(private readonly keysOf: (note: Note) => Iterable<string>) {
    this.bySection = SECTION_KEYS.has(keysOf);
  }

  /**
   * `note` is the note now at `path`, or undefined when it was removed. `appended`: the note with
   * only the sections appended since the version this tally was told of (its others alike).
   */
  update(path: string, note: Note | undefined, appended?: Note): void {
    const before = new Set(this.byPath.get(path));
    const after =
      note === undefined
        ? new Set<string>()
        : appended && this.bySection
          ? new Set([...before, ...this.keysOf(appended)])
          : new Set(this.keysOf(note));
    // A key the note gave before and gives still keeps its count; the version moves when a key
    // comes or goes, not when a note's keys stayed the same.
    let changed = false;
    for (const key of before) {
      if (after.has(key)) continue;
      const count = (this.keys.get(key) as number) - 1;
      if (count > 0) this.keys.set(key, count);
      else {
        this.keys.delete(key);
        changed = true;
      }
    }
    for (const key of after) {
      if (before.has(key)) continue;
      const count = (this.keys.get(key) ?? 0) + 1;
      this.keys.set(key, count);
      if (count === 1) changed = true;
    }
    if (after.size > 0) this.byPath.set(path, [...after]);
    else this.byPath.delete(path);
    if (changed) this.version++;
  }

  save(): SavedTally {
    return { kind: 'tally', keys: [...this.keys], byPath: [...this.byPath] };
  }

  restore(saved: SavedTally): void {
    for (const [key, count] of saved.keys) this.keys.set(key, count);
    for (const [path, keys] of saved.byPath) this.byPath.set(path, keys);
  }
}

export interface SavedFacet {
  kind: 'facet';
  paths: string[];
}

export interface SavedTally {
  kind: 'tally';
  keys: Array<[string, number]>;
  byPath: Array<[string, string[]]>;
}

/**
 * Trackers as the cache saves them, by name: each one's JSON, parsed when code first asks for that
 * tracker (restored instead of a scan of every note). A search asks for one or two of them; the
 * others stay text, a third of what they take parsed.
 */
export type SavedTrackers = Map<string, string>;

/** Whether `saved` (parsed from a cache file) has the shape of a saved tracker; anything else is damage. */
function isSavedTracker(saved: unknown): saved is SavedFacet | SavedTally {
  if (saved === null || typeof saved !== 'object') return false;
  const s = saved as { kind?: unknown; paths?: unknown[]; keys?: unknown[][]; byPath?: unknown[][] };
  if (s.kind === 'facet') return Array.isArray(s.paths) && s.paths.every((p) => typeof p === 'string');
  if (s.kind !== 'tally' || !Array.isArray(s.keys) || !Array.isArray(s.byPath)) return false;
  return (
    s.keys.every((k) => Array.isArray(k) && typeof k[0] === 'string' && Number.isInteger(k[1])) &&
    s.byPath.every((b) => Array.isArray(b) && typeof b[0] === 'string' && Array.isArray(b[1]))
  );
}

/** The trackers segment: a line per tracker, its name, a tab and its JSON (which holds no newline). */
export function formatTrackers(trackers: SavedTrackers): string {
  let out = '';
  for (const [name, json] of trackers) out += `${name}\t${json}\n`;
  return out;
}

/**
 * The trackers of a segment formatTrackers wrote; undefined when it is not that (damage). Each
 * line is decoded on its own from the bytes: a slice of the whole text would keep all of it alive
 * while any tracker waits unasked for in a loaded vault (the tab and the newline are single bytes
 * in UTF-8, never inside a character's).
 */
export function parseTrackers(text: string | Buffer): SavedTrackers | undefined {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const trackers: SavedTrackers = new Map();
  if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) return undefined;
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end > start) {
      const tab = bytes.indexOf(TAB, start);
      if (tab <= start || tab > end) return undefined;
      const name = bytes.toString('utf8', start, tab);
      if (trackers.has(name)) return undefined;
      trackers.set(name, bytes.toString('utf8', tab + 1, end));
    }
    start = end + 1;
  }
  return trackers;
}

const NEWLINE = 0x0a;
const TAB = 0x09;

/** One saved tracker, parsed and checked; undefined when damaged: the tracker is then made from the notes. */
export function parseTracker(json: string): SavedFacet | SavedTally | undefined {
  try {
    const saved: unknown = JSON.parse(json);
    return isSavedTracker(saved) ? saved : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Trackers that a vault's code asks for by name with a function of the note alone (speakers,
 * entry days, episodes …), declared where they are defined so that a save can keep them even when
 * no query asked for them yet (after `mem index --rebuild`). Changing what a declared tracker
 * computes needs a CACHE_SCHEMA bump, as any change to what the cache holds.
 */
export const DECLARED_TRACKERS = new Map<
  string,
  | { kind: 'facet'; test: (note: Note) => boolean }
  | { kind: 'tally'; keysOf: (note: Note) => Iterable<string> }
>();

export function declareFacet(name: string, test: (note: Note) => boolean): void {
  DECLARED_TRACKERS.set(name, { kind: 'facet', test });
}

export function declareTally(name: string, keysOf: (note: Note) => Iterable<string>): void {
  DECLARED_TRACKERS.set(name, { kind: 'tally', keysOf });
}
