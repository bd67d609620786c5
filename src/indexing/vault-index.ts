import type { Note, Section } from '../core/types.js';
import { DEFAULT_LAYOUT, type VaultLayout } from '../vault/layout.js';
import { linkableAnchor } from '../vault/link-name.js';
import { basenameOf, foldPath } from '../vault/resolve-link.js';
import type { TemplateSections } from '../vault/template-notes.js';
import { DEFAULT_LIMITS, type IndexLimits } from './bound-note.js';
import { LinkGraph } from './link-graph.js';
import { TextIndex } from './text-index.js';

/**
 * Everything derived from the files, kept together so that one change updates all of it:
 * the parsed notes, the text index over their sections and the link graph.
 */
export class VaultIndex {
  readonly notes = new Map<string, Note>();
  private readonly sectionsById = new Map<string, { note: Note; section: Section }>();
  /** How many notes share each lower-cased file name, so citations can use the short form when unique */
  private readonly basenameCounts = new Map<string, number>();
  text: TextIndex;
  graph: LinkGraph;
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
  /** Bumped by every change, so views derived from the whole vault know when to recompute */
  private version = 0;
  private readonly views = new Map<string, { version: number; value: unknown }>();
  /** Facets and tallies by name, each told of every change */
  private readonly trackers = new Map<string, Facet | Tally>();

  constructor(text = new TextIndex(), graph = new LinkGraph()) {
    this.text = text;
    this.graph = graph;
  }

  /** Adds a note or replaces the version held, in all three structures. */
  upsert(note: Note): void {
    const previous = this.notes.get(note.path);
    this.version++;
    for (const tracker of this.trackers.values()) tracker.update(note.path, note);
    if (previous) this.forgetSections(previous);
    else this.countBasename(note.path, 1);
    this.notes.set(note.path, note);
    for (const section of note.sections) this.sectionsById.set(section.id, { note, section });
    if (previous) this.text.replace(note, previous);
    else this.text.add(note);
    this.graph.upsert(note);
  }

  /**
   * Whether a section holds nothing but a template's text, its variables filled in: indexed (the
   * note is shown whole), but no hit of recall and no item of compile.
   */
  isTemplateSection(section: Section): boolean {
    return this.templates?.matches(section) ?? false;
  }

  remove(path: string): boolean {
    const previous = this.notes.get(path);
    if (!previous) return false;
    this.version++;
    for (const tracker of this.trackers.values()) tracker.update(path, undefined);
    this.forgetSections(previous);
    this.countBasename(path, -1);
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
    return this.track(name, Facet, () => new Facet(test));
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
    for (const note of this.notes.values()) tracker.update(note.path, note);
    this.trackers.set(name, tracker);
    return tracker;
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

  section(id: string): { note: Note; section: Section } | undefined {
    return this.sectionsById.get(id);
  }

  /** Finds a section of `path` by anchor (`''`, heading text or `^id`); falls back to the first section. */
  sectionByAnchor(path: string, anchor: string | undefined): { note: Note; section: Section } | undefined {
    const note = this.notes.get(path);
    if (!note) return undefined;
    const wanted = (anchor ?? '').replace(/^#/, '');
    const lower = wanted.toLowerCase();
    const section =
      note.sections.find((s) => s.anchor === wanted) ??
      note.sections.find((s) => s.anchor.toLowerCase() === lower) ??
      // `[[Note#H1#H2]]` names the innermost heading last.
      note.sections.find((s) => s.anchor.toLowerCase() === lower.split('#').pop()) ??
      // A heading cited with the characters a link cannot hold replaced by spaces.
      note.sections.find((s) => linkableAnchor(s.anchor).toLowerCase() === lower) ??
      note.sections[0];
    return section ? { note, section } : undefined;
  }

  /**
   * The shortest wiki-link text that Obsidian resolves to `path` from anywhere: the bare file name
   * when no other note shares it, else the full path. Without `.md`.
   */
  linkText(path: string): string {
    const full = path.replace(/\.md$/i, '');
    const base = nameKey(path);
    // A note about to be created counts too: its name must not clash with an existing one.
    const count = (this.basenameCounts.get(base) ?? 0) + (this.notes.has(path) ? 0 : 1);
    return count > 1 ? full : full.slice(full.lastIndexOf('/') + 1);
  }

  private countBasename(path: string, delta: number): void {
    const base = nameKey(path);
    const next = (this.basenameCounts.get(base) ?? 0) + delta;
    if (next > 0) this.basenameCounts.set(base, next);
    else this.basenameCounts.delete(base);
  }

  private forgetSections(note: Note): void {
    for (const section of note.sections) this.sectionsById.delete(section.id);
  }

  /**
   * An index over notes and a text index restored from the `.mem/` cache. The graph is rebuilt
   * from the notes: cheap, and one less thing to keep in sync.
   */
  static restore(notes: Note[], text: TextIndex): VaultIndex {
    const index = new VaultIndex(text, LinkGraph.fromNotes(notes));
    for (const note of notes) {
      index.notes.set(note.path, note);
      index.countBasename(note.path, 1);
      for (const section of note.sections) index.sectionsById.set(section.id, { note, section });
    }
    return index;
  }
}

/** The notes one test holds for (see VaultIndex.facet). */
class Facet {
  readonly notes = new Map<string, Note>();
  version = 0;

  constructor(private readonly test: (note: Note) => boolean) {}

  /** `note` is the note now at `path`, or undefined when it was removed. */
  update(path: string, note: Note | undefined): void {
    const member = note !== undefined && this.test(note);
    if (member) this.notes.set(path, note);
    else if (!this.notes.delete(path)) return;
    this.version++;
  }
}

/** The keys of all notes, counted (see VaultIndex.tally). */
class Tally {
  readonly keys = new Map<string, number>();
  version = 0;
  private readonly byPath = new Map<string, string[]>();

  constructor(private readonly keysOf: (note: Note) => Iterable<string>) {}

  update(path: string, note: Note | undefined): void {
    const before = new Set(this.byPath.get(path));
    const after = new Set(note === undefined ? [] : this.keysOf(note));
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
}

/** File names compare as link resolution compares them (NFC, case-insensitive). */
function nameKey(path: string): string {
  return foldPath(basenameOf(path));
}
