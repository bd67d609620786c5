import { expectString, MemError } from '../core/errors.js';
import type { Note, Section } from '../core/types.js';
import { DEFAULT_LAYOUT, type VaultLayout } from '../vault/layout.js';
import type { TemplateSections } from '../vault/template-notes.js';
import { DEFAULT_LIMITS, type IndexLimits } from './bound-note.js';
import { appendedLinks, LinkGraph } from './links/link-graph.js';
import { pickAnchor } from './links/link-places.js';
import type { Graph } from './links/saved-links.js';
import { NameCounts, nameKey } from './name-counts.js';
import type { PendingGeneration } from './note-spill.js';
import { NoteTable } from './note-table.js';
import { savedAnchors, savedPosition, savedSection, savedSectionAt, savedSectionsIn } from './saved-note.js';
import { TextIndex } from './text/text-index.js';
import { DECLARED_TRACKERS, Facet, parseTracker, type SavedTrackers, Tally } from './trackers.js';

/**
 * Everything derived from the files, kept together so that one change updates all of it:
 * the parsed notes, the text index over their sections and the link graph.
 */
export class VaultIndex {
  /** The notes by path; those restored from the cache are decoded when read (see NoteTable) */
  readonly notes: NoteTable;
  /**
   * How many notes share each folded file name, so citations can use the short form when unique;
   * made at the first citation, not at open (see NameCounts)
   */
  private names: NameCounts | undefined;
  text: TextIndex;
  graph: Graph;
  /** Bounds on the work one note may cost (the config's `limits`) */
  limits: IndexLimits = DEFAULT_LIMITS;
  /** Which folders hold which layer (the config's `layout`) */
  layout: VaultLayout = DEFAULT_LAYOUT;
  /** Index notes reached through symlinks, also from outside the vault (config `followOutsideSymlinks`) */
  followSymlinks = false;
  /**
   * Vault paths that are not memory (the template folders and the daily template): a walk passes
   * them by and a note there is removed (see vault/template-notes.ts). Undefined: none.
   */
  skipPath: ((path: string) => boolean) | undefined = undefined;
  /** The vault's templates, to tell a section that is only a template's text (isTemplateSection) */
  templates: TemplateSections | undefined = undefined;
  /**
   * A refresh that reads at least this many notes into the empty index spills them to a new cache
   * generation as it goes (see cold-build.ts); undefined: never (the index is not saved)
   */
  spillFrom: number | undefined = undefined;
  /** The generation a cold build spilled its notes into, for the save that follows */
  pending: PendingGeneration | undefined = undefined;
  /** Bumped by every change, so views derived from the whole vault know when to recompute */
  private version = 0;

  /** Bumped by every change but an append that adds no link (see linkChanges) */
  private linkVersion = 0;

  /** Moves with every change to the notes (a save compares it before and after). */
  get changes(): number {
    return this.version;
  }

  /**
   * Moves with every change that may move a link: all but an append to a note that adds no link (a
   * chat turn's entry, most often), which leaves every link, where it points and the section it
   * is in as they were. What is found from the links alone (who cites a note) holds while it stands.
   */
  get linkChanges(): number {
    return this.linkVersion;
  }
  private readonly views = new Map<string, { version: number; value: unknown }>();
  /** Facets and tallies by name, each told of every change */
  private readonly trackers = new Map<string, Facet | Tally>();
  /** Trackers the cache saved that no code asked for yet, and the paths changed since they were saved */
  private savedTrackers: { trackers: SavedTrackers; changed: Set<string> } | undefined;

  constructor(text = new TextIndex(), graph: Graph = new LinkGraph(), notes = new NoteTable()) {
    this.text = text;
    this.graph = graph;
    this.notes = notes;
    // A text index whose saved segments turn out damaged rebuilds itself from the notes.
    text.rebuildFrom = () => this.notes.values();
  }

  /** Readers holding the index's files open (see hold), and how far close() got */
  private readers = 0;
  private closeState: 'open' | 'asked' | 'closed' = 'open';

  /**
   * Keeps the cache files the index reads open until the function returned is called, even when
   * close() comes meanwhile (they close at the last release): a request in flight when a server
   * stops, a pool unloads its vault or a live index closes answers from the index it began with.
   * Throws a CLOSED MemError once the index is closed.
   */
  hold(): () => void {
    if (this.closeState === 'closed')
      throw new MemError('CLOSED', 'the vault is closed: its index can no longer be read');
    this.readers++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.readers === 0 && this.closeState === 'asked') this.closeNow();
    };
  }

  /** Adds a note or replaces the version held, in all three structures. */
  upsert(note: Note): void {
    const previous = this.notes.get(note.path);
    this.version++;
    const added = previous && appendedSections(previous, note);
    if (!(added && note.links.length === previous.links.length && appendedLinks(previous, note)))
      this.linkVersion++;
    const appended = added ? { ...note, sections: added } : undefined;
    for (const tracker of this.trackers.values()) tracker.update(note.path, note, appended);
    this.savedTrackers?.changed.add(note.path);
    if (!previous) this.names?.add(note.path);
    this.notes.set(note.path, note);
    if (previous) this.text.replace(note, previous);
    else this.text.add(note);
    // An append keeps the links it shares with the note before it (link-graph.ts).
    this.graph.upsert(note, added ? previous : undefined);
  }

  /** A note's file got a new size or mtime and kept its content: remembered without a decode. */
  touch(path: string, size: number, mtimeMs: number): void {
    this.notes.touch(path, size, mtimeMs);
  }

  /**
   * Whether a section holds nothing but a template's text, its variables filled in: indexed (the
   * note is shown whole), but no hit of recall and no item of compile.
   */
  isTemplateSection(section: Section): boolean {
    return this.templates?.matches(section) ?? false;
  }

  remove(path: string): boolean {
    if (!this.notes.has(path)) return false;
    this.version++;
    this.linkVersion++;
    for (const tracker of this.trackers.values()) tracker.update(path, undefined);
    this.savedTrackers?.changed.add(path);
    this.names?.remove(path);
    this.notes.delete(path);
    this.text.remove(path);
    this.graph.remove(path);
    return true;
  }

  /**
   * A view computed from the whole vault (the persona notes, every episode entry by date …),
   * kept until the next change. Compile runs every chat turn; scanning 10,000 notes each time
   * would cost more than the rest of the turn.
   */
  view<T>(name: string, compute: () => T): T {
    const cached = this.views.get(name);
    if (cached && cached.version === this.version) return cached.value as T;
    const value = compute();
    this.views.set(name, { version: this.version, value });
    return value;
  }

  /**
   * The notes for which `test` holds, kept as notes change (the first call for a name scans the
   * vault; each change after it tests the one note changed), and a version that moves only when one
   * of them changes, joins or leaves. `test` must depend on the note alone and be the same function
   * for a name every time.
   */
  facet(name: string, test: (note: Note) => boolean): { notes: ReadonlyMap<string, Note>; version: number } {
    return this.track(name, Facet, () => new Facet(test, (path) => this.notes.get(path)));
  }

  /**
   * The keys `keysOf` gives over all notes (the speakers of entries, the days that have entries),
   * each with how many notes give it, kept as notes change, and a version that moves only when a
   * key appears or disappears: a turn's new entry by a known speaker on today's date leaves it.
   * `keysOf` must depend on the note alone and be the same function for a name every time.
   */
  tally(
    name: string,
    keysOf: (note: Note) => Iterable<string>,
  ): { keys: ReadonlyMap<string, number>; version: number } {
    return this.track(name, Tally, () => new Tally(keysOf));
  }

  /** The tracker of that name, made and shown every note the first time it is asked for. */
  private track<T extends Facet | Tally>(name: string, kind: new (...args: never[]) => T, make: () => T): T {
    const known = this.trackers.get(name);
    if (known instanceof kind) return known;
    if (known !== undefined) throw new Error(`"${name}" is already tracked as another kind`);
    const tracker = make();
    const json = this.savedTrackers?.trackers.get(name);
    // Made now, it is saved as made: its saved text is no longer needed.
    this.savedTrackers?.trackers.delete(name);
    const saved = json === undefined ? undefined : parseTracker(json);
    if (saved && saved.kind === (tracker instanceof Facet ? 'facet' : 'tally')) {
      // Restored as the cache saved it, then told of the notes changed since.
      (tracker as { restore(saved: unknown): void }).restore(saved);
      for (const path of this.savedTrackers?.changed ?? []) tracker.update(path, this.notes.get(path));
    } else {
      for (const [path, note] of this.notes) tracker.update(path, note);
    }
    this.trackers.set(name, tracker);
    return tracker;
  }

  /**
   * The trackers as a save keeps them: every one asked for or declared (see trackers.ts), and
   * those restored that no code asked for yet while no note changed since.
   */
  saveTrackers(): SavedTrackers {
    this.trackDeclared();
    const pending = this.savedTrackers;
    const out: SavedTrackers = new Map();
    if (pending && pending.changed.size === 0) {
      // Kept as saved, but never a line that does not parse: that tracker is made when asked for.
      for (const [name, json] of pending.trackers) if (parseTracker(json)) out.set(name, json);
    }
    for (const [name, tracker] of this.trackers) out.set(name, JSON.stringify(tracker.save()));
    return out;
  }

  /** Makes every declared tracker (see trackers.ts) not made yet. */
  trackDeclared(): void {
    for (const [name, declared] of DECLARED_TRACKERS) {
      if (declared.kind === 'facet') this.facet(name, declared.test);
      else this.tally(name, declared.keysOf);
    }
  }

  /** Closes the cache files the saved notes, documents and postings are read from, once no reader holds them. */
  close(): void {
    if (this.closeState === 'open') this.closeState = 'asked';
    if (this.readers === 0) this.closeNow();
  }

  private closeNow(): void {
    this.closeState = 'closed';
    this.notes.close();
    this.text.close();
  }

  /**
   * A view computed from the notes of `facet` alone (or a tally's keys), kept until one of them
   * changes: a chat turn's write to today's note leaves the persona and the profile as they were,
   * and scanning 100,000 notes for them after every write was half of a turn's compile.
   */
  viewOf<T>(name: string, facet: { version: number }, compute: () => T): T {
    const key = `facet:${name}`;
    const cached = this.views.get(key);
    if (cached && cached.version === facet.version) return cached.value as T;
    const value = compute();
    this.views.set(key, { version: facet.version, value });
    return value;
  }

  /** The section of that id (`path#anchor`) and its note. */
  section(id: string): { note: Note; section: Section } | undefined {
    // A path may hold `#` itself: each split is tried, shortest path first.
    for (let hash = id.indexOf('#'); hash !== -1; hash = id.indexOf('#', hash + 1)) {
      const found = this.sectionIn(id.slice(0, hash), id);
      if (found) return found;
    }
    return undefined;
  }

  /** The section of that id in the note at `path`: no other note, whatever `#` the path holds. */
  sectionIn(path: string, id: string): { note: Note; section: Section } | undefined {
    const note = this.notes.get(path);
    if (!note) return undefined;
    // A note from the cache decodes only that section.
    const saved = savedSection(note, id);
    const section = saved === 'not saved' ? sectionsOf(note).get(id) : saved;
    return section ? { note, section } : undefined;
  }

  /** Finds a section of `path` by anchor (`''`, heading text or `^id`); falls back to the first section. */
  sectionByAnchor(path: string, anchor: string | undefined): { note: Note; section: Section } | undefined {
    const note = this.notes.get(path);
    if (!note) return undefined;
    // A note from the cache: the anchors choose, and only the section chosen is decoded.
    const anchors = savedAnchors(note);
    const k = pickAnchor(anchors ?? note.sections.map((s) => s.anchor), anchor);
    return inNote(note, anchors ? savedSectionAt(note, k) : note.sections[k]);
  }

  /** Section `k` (in order) of the note at `path`; a note from the cache decodes only it. */
  sectionAt(path: string, k: number): { note: Note; section: Section } | undefined {
    const note = this.notes.get(path);
    return note && inNote(note, savedAnchors(note) ? savedSectionAt(note, k) : note.sections[k]);
  }

  /**
   * The entries (block sections) nearest `section` in its note, up to `count` on each side, nearest
   * first. A note from the cache finds them from its outline and decodes only those: a hit on one
   * entry of a day of hundreds does not decode the day.
   */
  entriesAround(note: Note, section: Section, count: number): { before: Section[]; after: Section[] } {
    const anchors = savedAnchors(note);
    if (anchors) {
      const at = savedPosition(note, section) ?? -1;
      return {
        before: savedEntries(note, anchors, at, -1, count),
        after: savedEntries(note, anchors, at, 1, count),
      };
    }
    const at = note.sections.indexOf(section);
    return {
      before: entriesFrom(note.sections, at, -1, count),
      after: entriesFrom(note.sections, at, 1, count),
    };
  }

  /**
   * The shortest wiki-link text that Obsidian resolves to `path` from anywhere: the bare file name
   * when no other note shares it, else the full path. Without `.md`.
   */
  linkText(path: string): string {
    expectString(path, 'a vault path');
    const full = path.replace(/\.md$/i, '');
    const base = nameKey(path);
    // A note about to be created counts too: its name must not clash with an existing one.
    this.names ??= new NameCounts(this.notes.keys());
    const count = this.names.count(base) + (this.notes.has(path) ? 0 : 1);
    return count > 1 ? full : full.slice(full.lastIndexOf('/') + 1);
  }

  /**
   * An index restored from the `.mem/` cache: its notes (held as saved slots), text index, link
   * graph and the trackers it saved. Nothing is built per note.
   */
  static restore(notes: NoteTable, text: TextIndex, graph: Graph, trackers: SavedTrackers): VaultIndex {
    const index = new VaultIndex(text, graph, notes);
    index.savedTrackers = { trackers, changed: new Set() };
    return index;
  }
}

/**
 * The sections `note` has after those of `previous` when it is `previous` with sections appended
 * (the sections before the same objects, or copies that differ only in where they end, as an
 * append read alone makes them: append-note.ts); else undefined.
 */
function appendedSections(previous: Note, note: Note): Section[] | undefined {
  const before = previous.sections;
  const after = note.sections;
  if (after.length <= before.length || previous.layer !== note.layer || previous.path !== note.path)
    return undefined;
  for (let k = 0; k < before.length; k++) {
    const a = before[k] as Section;
    const b = after[k] as Section;
    if (a !== b && !sameButSpan(a, b)) return undefined;
  }
  return after.slice(before.length);
}

function sameButSpan(a: Section, b: Section): boolean {
  const keys = Object.keys(a) as Array<keyof Section>;
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => key === 'start' || key === 'end' || key === 'line' || a[key] === b[key]);
}

const inNote = (note: Note, section: Section | undefined) => (section ? { note, section } : undefined);

/** The first `count` entries (block sections) from `at` towards `direction`, nearest first. */
function entriesFrom(sections: Section[], at: number, direction: 1 | -1, count: number): Section[] {
  const found: Section[] = [];
  for (let i = at + direction; i >= 0 && i < sections.length && found.length < count; i += direction) {
    const candidate = sections[i] as Section;
    if (candidate.kind === 'block') found.push(candidate);
  }
  return found;
}

/**
 * entriesFrom over a saved note: an entry's anchor is its block id (`^id`), so the anchors tell
 * which sections to decode, read in one piece; one that turns out not to be an entry (a heading
 * written `^…`) is passed over and the search goes on beyond it.
 */
function savedEntries(
  note: Note,
  anchors: readonly string[],
  at: number,
  direction: 1 | -1,
  count: number,
): Section[] {
  const found: Section[] = [];
  let i = at + direction;
  while (found.length < count) {
    // The positions of the next entries still wanted, by their anchors.
    let first = -1;
    let last = -1;
    let wanted = count - found.length;
    for (let k = i; k >= 0 && k < anchors.length && wanted > 0; k += direction) {
      if (!(anchors[k] as string).startsWith('^')) continue;
      if (first === -1) first = k;
      last = k;
      wanted--;
    }
    if (first === -1) break;
    const from = Math.min(first, last);
    const sections = savedSectionsIn(note, from, Math.max(first, last) + 1) ?? [];
    for (let k = first; found.length < count && k !== last + direction; k += direction) {
      const candidate = sections[k - from];
      if (candidate?.kind === 'block') found.push(candidate);
    }
    i = last + direction;
  }
  return found;
}

/** A note's sections by id, made once per note object. */
const sectionMaps = new WeakMap<Note, Map<string, Section>>();

function sectionsOf(note: Note): Map<string, Section> {
  let map = sectionMaps.get(note);
  if (!map) {
    map = new Map();
    // The last of a repeated id, as the map of every section kept it before.
    for (const section of note.sections) map.set(section.id, section);
    sectionMaps.set(note, map);
  }
  return map;
}
