// A note as the cache saves it: records, each a line of JSON with its own CRC-32 in the note table
// (docs/index-format.md). Record 0 is the head (everything but the links, headings, blocks and
// sections, plus each section's anchor and span), record 1 the links, headings and blocks, and one
// record per section after. A note read from the cache is its head; the rest is decoded when first
// asked for, so a hit on one entry of a day of hundreds decodes that entry, not the day.
import type { Block, Heading, LinkRef, Note, Section } from '../core/types.js';

/** The records before the first section's: the head and the body (links, headings, blocks) */
export const SECTION_RECORD = 2;

/** A section as the head lists it: anchor, start, end, and its id when that is not `path#anchor`. */
type Outline = [string, number, number] | [string, number, number, string];

/** What a saved note reads its records through (the note table). */
export interface RecordSource {
  /** Records `from` … `to` - 1 of a slot, each checked against its CRC-32; undefined when damaged */
  records(slot: number, from: number, to: number): string[] | undefined;
  /** Counts bytes decoded after the head against the decoded-notes bound */
  grew(bytes: number): void;
  /** The note read again from its file, its saved records being damaged */
  repair(slot: number): Note;
}

/** The part of a saved note not decoded yet, and its sections decoded so far. */
class SavedParts {
  private byId: Map<string, number> | undefined;
  private anchorList: string[] | undefined;
  readonly sections: Array<Section | undefined>;

  constructor(
    readonly path: string,
    readonly slot: number,
    readonly outline: Outline[],
    readonly source: RecordSource,
  ) {
    this.sections = new Array(outline.length);
  }

  /** Records `from` … `to` - 1, read now and counted against the decoded-notes bound. */
  private records(from: number, to: number): string[] | undefined {
    const read = this.source.records(this.slot, from, to);
    if (read) this.source.grew(read.reduce((sum, record) => sum + record.length, 0));
    return read;
  }

  idOf(k: number): string {
    const o = this.outline[k] as Outline;
    return o[3] ?? `${this.path}#${o[0]}`;
  }

  /** The position of the section of that id, or -1. */
  find(id: string): number {
    const { outline, path } = this;
    if (outline.length <= 8) {
      // Compared as `path#anchor` without making the string.
      const anchor =
        id.length > path.length && id[path.length] === '#' && id.startsWith(path)
          ? id.slice(path.length + 1)
          : undefined;
      for (let k = outline.length - 1; k >= 0; k--) {
        const o = outline[k] as Outline;
        if (o[3] === undefined ? o[0] === anchor : o[3] === id) return k;
      }
      return -1;
    }
    if (!this.byId) {
      this.byId = new Map();
      for (let k = 0; k < outline.length; k++) this.byId.set(this.idOf(k), k);
    }
    return this.byId.get(id) ?? -1;
  }

  anchors(): string[] {
    this.anchorList ??= this.outline.map((o) => o[0]);
    return this.anchorList;
  }

  section(k: number): Section {
    const known = this.sections[k];
    if (known) return known;
    this.decodeSections(k, k + 1);
    return this.sections[k] as Section;
  }

  /** Every section, those decoded before kept as they are (a hit's section is the one in the list). */
  all(): Section[] {
    this.decodeMissing(0, this.sections.length);
    return this.sections as Section[];
  }

  /** Sections `from` … `to` - 1, those not decoded yet read in one piece. */
  range(from: number, to: number): Section[] {
    this.decodeMissing(from, to);
    return this.sections.slice(from, to) as Section[];
  }

  /** The position of a section decoded from this note (the very object), or -1: nothing is decoded. */
  position(section: Section): number {
    const k = this.find(section.id);
    return k !== -1 && this.sections[k] === section ? k : this.sections.indexOf(section);
  }

  private decodeMissing(from: number, to: number): void {
    let first = from;
    while (first < to && this.sections[first]) first++;
    let last = to;
    while (last > first && this.sections[last - 1]) last--;
    if (first < last) this.decodeSections(first, last);
  }

  body(): [LinkRef[], Heading[], Block[]] {
    const text = this.records(1, 2)?.[0];
    const body = text === undefined ? undefined : parse(text);
    if (Array.isArray(body) && body.length === 3 && body.every(Array.isArray)) {
      return body as [LinkRef[], Heading[], Block[]];
    }
    const whole = this.source.repair(this.slot);
    return [whole.links, whole.headings, whole.blocks];
  }

  private decodeSections(from: number, to: number): void {
    const read = this.records(SECTION_RECORD + from, SECTION_RECORD + to);
    // Many records are parsed as one array: one parse of a day's entries, not one per entry.
    const parsed = read && read.length > 1 ? parse(`[${read.join(',')}]`) : undefined;
    const many = Array.isArray(parsed) && parsed.length === to - from ? parsed : undefined;
    for (let k = from; k < to; k++) {
      if (this.sections[k]) continue;
      const text = read?.[k - from];
      const section = (many ? many[k - from] : text === undefined ? undefined : parse(text)) as
        | Section
        | null
        | undefined;
      if (section === null || typeof section !== 'object' || section.id !== this.idOf(k)) {
        this.repairSections();
        return;
      }
      this.sections[k] = section;
    }
  }

  /** The sections not decoded yet taken from the note read again from its file (by id). */
  private repairSections(): void {
    const whole = this.source.repair(this.slot);
    const byId = new Map(whole.sections.map((s) => [s.id, s]));
    for (let k = 0; k < this.sections.length; k++) {
      if (this.sections[k]) continue;
      const o = this.outline[k] as Outline;
      // The file changed since it was indexed: its section, empty, stands in until the refresh.
      this.sections[k] = byId.get(this.idOf(k)) ?? {
        id: this.idOf(k),
        anchor: o[0],
        kind: o[0] === '' ? 'preamble' : 'heading',
        text: '',
        start: o[1],
        end: o[2],
        line: 1,
      };
    }
  }
}

const partsOf = new WeakMap<Note, SavedParts>();

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The records of a note: head, body, then one per section. */
export function noteRecords(note: Note): string[] {
  const outline = note.sections.map((s): Outline => {
    const span: Outline = [s.anchor, s.start, s.end];
    if (s.id !== `${note.path}#${s.anchor}`) span.push(s.id);
    return span;
  });
  // The four parts kept as placeholders where they stand, so a decoded note has its keys in order.
  const head = JSON.stringify([{ ...note, links: 0, headings: 0, sections: 0, blocks: 0 }, outline]);
  const body = JSON.stringify([note.links, note.headings, note.blocks]);
  return [head, body, ...note.sections.map((s) => JSON.stringify(s))];
}

/**
 * The note of a slot from its head record, its links, headings, blocks and sections read when
 * first asked for; or, given `read` (every record of a small note), the note decoded whole. Undefined
 * when the head is not a note of that path with `sections` sections.
 */
export function savedNote(
  slot: number,
  path: string,
  head: string,
  sections: number,
  source: RecordSource,
  /** Every record of the note, when it was read whole */
  read?: string[],
): Note | undefined {
  const parsed = parse(head);
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [note, outline] = parsed as [Note, Outline[]];
  if (note === null || typeof note !== 'object' || note.path !== path) return undefined;
  if (!Array.isArray(outline) || outline.length !== sections || !outline.every(isOutline)) return undefined;
  if (read) return wholeNote(note, outline, path, read);
  const parts = new SavedParts(path, slot, outline, source);
  const saved = inOrder(note) ? withParts(note, parts) : definedOver(note, parts);
  partsOf.set(saved, parts);
  return saved;
}

/** A small note decoded whole from all its records, as a plain note; undefined when one is damaged. */
function wholeNote(note: Note, outline: Outline[], path: string, read: string[]): Note | undefined {
  const body = parse(read[1] as string);
  if (!Array.isArray(body) || body.length !== 3 || !body.every(Array.isArray)) return undefined;
  const sections: Section[] = [];
  for (let k = 0; k < outline.length; k++) {
    const section = parse(read[SECTION_RECORD + k] as string) as Section | null | undefined;
    const o = outline[k] as Outline;
    if (section === null || typeof section !== 'object' || section.id !== (o[3] ?? `${path}#${o[0]}`))
      return undefined;
    sections.push(section);
  }
  // Set where the placeholders stand: the note keeps its keys in order.
  note.links = body[0] as LinkRef[];
  note.headings = body[1] as Heading[];
  note.sections = sections;
  note.blocks = body[2] as Block[];
  return note;
}

/** The keys of a Note in the order parseNote gives them (the order of its JSON). */
const KEYS = [
  'path',
  'layer',
  'frontmatter',
  'title',
  'aliases',
  'tags',
  'links',
  'headings',
  'sections',
  'blocks',
  'warnings',
  'hash',
  'size',
  'mtimeMs',
];

function inOrder(head: Note): boolean {
  let i = 0;
  for (const key in head) if (key !== KEYS[i++]) return false;
  return i === KEYS.length;
}

/**
 * The note as one object literal, its four parts accessors that decode them when first read: every
 * saved note shares one shape, so reading its layer or frontmatter stays as fast as a plain note's.
 */
function withParts(head: Note, parts: SavedParts): Note {
  let links: LinkRef[] | undefined;
  let headings: Heading[] | undefined;
  let sections: Section[] | undefined;
  let blocks: Block[] | undefined;
  const body = () => {
    const [l, h, b] = parts.body();
    links ??= l;
    headings ??= h;
    blocks ??= b;
  };
  const note: Note = {
    path: head.path,
    layer: head.layer,
    frontmatter: head.frontmatter,
    title: head.title,
    aliases: head.aliases,
    tags: head.tags,
    get links(): LinkRef[] {
      if (links === undefined) body();
      return links as LinkRef[];
    },
    set links(value: LinkRef[]) {
      links = value;
    },
    get headings(): Heading[] {
      if (headings === undefined) body();
      return headings as Heading[];
    },
    set headings(value: Heading[]) {
      headings = value;
    },
    get sections(): Section[] {
      sections ??= parts.all();
      return sections;
    },
    set sections(value: Section[]) {
      sections = value;
      // A note whose sections were replaced is no longer read through its saved parts.
      if (value !== parts.sections) partsOf.delete(note);
    },
    get blocks(): Block[] {
      if (blocks === undefined) body();
      return blocks as Block[];
    },
    set blocks(value: Block[]) {
      blocks = value;
    },
    warnings: head.warnings,
    hash: head.hash,
    size: head.size,
    mtimeMs: head.mtimeMs,
  };
  return note;
}

/** A note of other keys (or another order): its parts defined over the parsed head where they stand. */
function definedOver(note: Note, parts: SavedParts): Note {
  let body: [LinkRef[], Heading[], Block[]] | undefined;
  const bodyPart = (i: 0 | 1 | 2) => {
    body ??= parts.body();
    return body[i];
  };
  lazy(note, 'links', () => bodyPart(0));
  lazy(note, 'headings', () => bodyPart(1));
  lazy(note, 'sections', () => parts.all());
  lazy(note, 'blocks', () => bodyPart(2));
  return note;
}

function isOutline(o: unknown): o is Outline {
  return (
    Array.isArray(o) &&
    (o.length === 3 || (o.length === 4 && typeof o[3] === 'string')) &&
    typeof o[0] === 'string' &&
    typeof o[1] === 'number' &&
    typeof o[2] === 'number'
  );
}

/** `key` of `note` becomes a plain property holding `load()` the first time it is read. */
function lazy(note: Note, key: 'links' | 'headings' | 'sections' | 'blocks', load: () => unknown): void {
  const settle = (value: unknown) => {
    Object.defineProperty(note, key, { value, writable: true, enumerable: true, configurable: true });
    // A note whose sections were replaced is no longer read through its saved parts.
    if (key === 'sections' && value !== partsOf.get(note)?.sections) partsOf.delete(note);
  };
  Object.defineProperty(note, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = load();
      settle(value);
      return value;
    },
    set: settle,
  });
}

/** The section of that id of a note, decoding only it when the note is a saved one. */
export function savedSection(note: Note, id: string): Section | undefined | 'not saved' {
  const parts = partsOf.get(note);
  if (!parts) return 'not saved';
  const k = parts.find(id);
  return k === -1 ? undefined : parts.section(k);
}

/** Anchor, start and end of each section, without decoding one of a saved note. */
export function sectionSpans(note: Note): ReadonlyArray<{ anchor: string; start: number; end: number }> {
  const parts = partsOf.get(note);
  if (!parts) return note.sections;
  return parts.outline.map((o) => ({ anchor: o[0], start: o[1], end: o[2] }));
}

/** The anchors of a saved note's sections, in order, without decoding one; undefined for another note. */
export function savedAnchors(note: Note): readonly string[] | undefined {
  return partsOf.get(note)?.anchors();
}

/** Section `k` of a saved note (see savedAnchors), decoding only it. */
export function savedSectionAt(note: Note, k: number): Section | undefined {
  const parts = partsOf.get(note);
  return parts && k >= 0 && k < parts.outline.length ? parts.section(k) : undefined;
}

/**
 * The position of `section` among a saved note's sections (-1 when it is not one of them), found
 * without decoding another; undefined for a note that is not read through its saved records.
 */
export function savedPosition(note: Note, section: Section): number | undefined {
  return partsOf.get(note)?.position(section);
}

/** Sections `from` … `to` - 1 of a saved note (see savedAnchors), decoding only those. */
export function savedSectionsIn(note: Note, from: number, to: number): Section[] | undefined {
  const parts = partsOf.get(note);
  return parts ? parts.range(Math.max(0, from), Math.min(to, parts.outline.length)) : undefined;
}

/** How many of a saved note's sections are decoded so far; undefined for another note. */
export function savedSectionsDecoded(note: Note): number | undefined {
  const parts = partsOf.get(note);
  return parts ? parts.sections.reduce((n) => n + 1, 0) : undefined;
}
