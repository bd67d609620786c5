// The JSON routes the web page (GET /, templates/page/) reads besides /recall: the vault's days, one
// day's entries, the compiled context of one turn, and a note's Markdown. Read-only, like /notes/.
import { join } from 'node:path';
import {
  type CompileResult,
  isDayText,
  isJournalSection,
  journalItems,
  MemError,
  type Note,
  readRegularFile,
  type Vault,
} from '../internal.js';
import { HttpError, idsOf, notePathOf, type Route, readVault } from './routes.js';

/** One day of the timeline */
export interface DaySummary {
  date: string;
  /** The episode notes that hold its entries (one, unless a day was written in two notes) */
  paths: string[];
  entries: number;
  /** `HH:MM` of its first and last timed entry */
  first?: string;
  last?: string;
  speakers: string[];
}

/**
 * One entry of an episode note, as the timeline shows it: one of mem's, or one item of a section
 * of the person's own journal (which shares its section's id, has no speaker, and is as written)
 */
export interface DayEntry {
  /** `path#^anchor` (`path#Heading` for the person's items): what /turn takes */
  id: string;
  path: string;
  anchor: string;
  date: string;
  time?: string;
  speaker?: string;
  text: string;
  importance?: number;
}

/** Episode notes of days (not rollups, which stand for many days) */
const isDayNote = (note: Note) => note.layer === 'episodes' && note.frontmatter['type'] !== 'rollup';

/** The dated entries of every day note, oldest first within a note as written. */
function allEntries(vault: Vault): DayEntry[] {
  // By layer, not by folder: a vault's layout may keep its days anywhere (layout.* in mem.config.json).
  return vault
    .paths()
    .map((path) => vault.note(path))
    .filter(isDayNote)
    .flatMap((note) => note.sections.flatMap((section) => entryOf(note, section)));
}

function entryOf(note: Note, section: Note['sections'][number]): DayEntry[] {
  if (section.date === undefined) return [];
  const at = { id: section.id, path: note.path, anchor: section.anchor, date: section.date };
  // The person's own journal: each of their items, with its time when it has one, and no speaker.
  if (isJournalSection(note, section))
    return journalItems(section.text).map((item) => ({
      ...at,
      ...(item.time !== undefined ? { time: item.time } : {}),
      text: item.text,
    }));
  if (section.kind !== 'block') return [];
  return [
    {
      ...at,
      ...(section.time !== undefined ? { time: section.time } : {}),
      ...(section.speaker !== undefined ? { speaker: section.speaker } : {}),
      text: section.text,
      ...(section.importance !== undefined ? { importance: section.importance } : {}),
    },
  ];
}

/** Every day with entries, newest first. */
export function listDays(vault: Vault): DaySummary[] {
  const days = new Map<string, DaySummary>();
  for (const entry of allEntries(vault)) {
    let day = days.get(entry.date);
    if (!day) {
      day = { date: entry.date, paths: [], entries: 0, speakers: [] };
      days.set(entry.date, day);
    }
    day.entries += 1;
    if (!day.paths.includes(entry.path)) day.paths.push(entry.path);
    if (entry.speaker !== undefined && !day.speakers.includes(entry.speaker))
      day.speakers.push(entry.speaker);
    if (entry.time !== undefined) {
      if (day.first === undefined || entry.time < day.first) day.first = entry.time;
      if (day.last === undefined || entry.time > day.last) day.last = entry.time;
    }
  }
  return [...days.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** One day's entries in the order of their time (entries without one keep their place at the end). */
export function dayEntries(vault: Vault, date: string): DayEntry[] {
  const entries = allEntries(vault).filter((entry) => entry.date === date);
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => {
      const at = a.entry.time ?? '99:99';
      const bt = b.entry.time ?? '99:99';
      return at < bt ? -1 : at > bt ? 1 : a.i - b.i;
    })
    .map(({ entry }) => entry);
}

/** What the model got for the turn `id` (`path#^anchor`): compile of its text, at its time. */
export function turnContext(
  vault: Vault,
  id: string,
): { entry: DayEntry; now: string; compile: CompileResult } {
  const hash = id.indexOf('#');
  if (hash < 1)
    throw new HttpError(400, `entry must be a note path and an entry anchor (path#^e1), got "${id}"`);
  const note = vault.note(notePathOf(id.slice(0, hash)));
  const section = note.sections.find((s) => s.anchor === id.slice(hash + 1));
  const [first] = section && isDayNote(note) ? entryOf(note, section) : [];
  if (!first || !section) throw new MemError('NOT_FOUND', `no episode entry ${id}`);
  // A section of the person's journal is one turn: all its items, at the time of its first.
  const entry = first.text === section.text ? first : { ...first, text: section.text };
  // The vault's wall clock: the entry's time as written, read in its time zone.
  const now = `${entry.date}T${entry.time ?? '23:59'}`;
  return { entry, now, compile: vault.compile({ message: entry.text, now }) };
}

const noVault = (what: string) => () => {
  throw new MemError('NOT_FOUND', `${what} not found: this vault does not exist yet`);
};

export const pageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/days',
    reads: true,
    handle: async (request, context) => {
      const { value, partial } = await readVault(context, idsOf(request), listDays, () => []);
      return { status: 200, body: { days: value, ...(partial ? { partial } : {}) } };
    },
  },
  {
    method: 'GET',
    path: '/days/',
    reads: true,
    handle: async (request, context) => {
      const date = request.rest;
      if (!isDayText(date)) throw new HttpError(400, `a day must be YYYY-MM-DD, got "${date}"`);
      const { value, partial } = await readVault(
        context,
        idsOf(request),
        (vault) => dayEntries(vault, date),
        () => [],
      );
      return { status: 200, body: { date, entries: value, ...(partial ? { partial } : {}) } };
    },
  },
  {
    method: 'GET',
    path: '/turn',
    reads: true,
    handle: async (request, context) => {
      const id = request.query.get('entry');
      if (!id) throw new HttpError(400, 'entry is required: /turn?entry=<path>%23<anchor>');
      const { value, partial } = await readVault(
        context,
        idsOf(request),
        (vault) => turnContext(vault, id),
        noVault('entry'),
      );
      return { status: 200, body: { ...value, ...(partial ? { partial } : {}) } };
    },
  },
  {
    method: 'GET',
    path: '/markdown/',
    reads: true,
    handle: async (request, context) => {
      const ref = notePathOf(request.rest);
      const { value } = await readVault(
        context,
        idsOf(request),
        // Only an indexed note is read: the path is the index's, never the request's.
        async (vault) => {
          const note = vault.note(ref);
          const bytes = await readRegularFile(join(vault.root, note.path)).catch((error: unknown) => {
            // Deleted since it was indexed: the watcher has not caught up yet.
            if ((error as NodeJS.ErrnoException).code === 'ENOENT')
              throw new MemError('NOT_FOUND', `note not found: ${ref}`);
            throw error;
          });
          return { path: note.path, title: note.title, markdown: bytes.toString('utf8') };
        },
        noVault('note'),
      );
      return { status: 200, body: value };
    },
  },
];
