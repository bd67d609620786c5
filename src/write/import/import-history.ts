import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { MemConfig } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import { readRegularFile } from '../../core/regular-file.js';
import type { WriteCommit } from '../../git/commit-write.js';
import { hasNoteDay } from '../../time/zoned-date.js';
import { layerOf, layoutOf } from '../../vault/layout.js';
import { parseChatGptExport } from './chatgpt-export.js';
import { parseClaudeExport } from './claude-export.js';
import { detectFileFormat, parseJson, unknownFormat } from './detect-format.js';
import {
  BAD_TIME,
  countSkip,
  type ImportedConversation,
  type ImportFormat,
  NO_TIME,
  type SkipCounts,
} from './import-types.js';
import { type IngestTurn, ingestTurns } from './ingest.js';
import { journalDay, listMarkdown, parseJournalDay } from './journal-folder.js';
import { parseMemoryGraph } from './memory-graph.js';
import { decodeTranscript } from './parse-transcript.js';
import { parseVtuberHistory } from './vtuber-history.js';
import { writeMemoryGraph } from './write-memory-graph.js';

export interface ImportOptions {
  /** The format, when it is not to be told from the content */
  format?: ImportFormat;
  /** When the import runs: the time new profile notes are stamped with (default: now) */
  now?: Date;
  noRedact?: boolean;
  /** The vault's notes, so a memory graph's entity is written to the note a link to it reaches */
  notes?: Iterable<string>;
  /** Called as days (conversations) or notes (a memory graph) are written: done, in all, and which */
  onProgress?: (done: number, total: number, unit: 'days' | 'notes') => void;
}

export interface ImportResult extends WriteCommit {
  format: ImportFormat;
  /** Conversations read (journal days for a journal folder, entities for a memory graph) */
  conversations: number;
  /** Entries written to episodes (facts and links written to notes for a memory graph) */
  added: number;
  /** Entries (or facts) an earlier import already wrote */
  already: number;
  /** Messages and files left out, by reason */
  skipped: SkipCounts;
  /** Daily notes that received entries */
  days: string[];
  /** Profile notes created and updated (memory graph only) */
  created: string[];
  updated: string[];
  paths: string[];
  redacted: number;
}

/** File endings of what mem import reads; `decodeTranscript` then refuses binary content. */
const READABLE = /\.(json|jsonl|ndjson|md|markdown)$/i;

async function readText(path: string, label: string): Promise<string> {
  if (/\.zip$/i.test(label))
    throw unknownFormat(
      label,
      'an export archive is unzipped first; import the conversations.json inside it',
    );
  if (!READABLE.test(label)) throw unknownFormat(label, 'not a .json, .jsonl or .md file');
  const bytes = await readRegularFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof MemError) throw error;
    throw new MemError('NOT_FOUND', `cannot read ${label}: ${error.code ?? error.message}`);
  });
  return decodeTranscript(bytes, label);
}

/** A folder's conversations: Open-LLM-VTuber history files (`*.json`), or Markdown journal days. */
async function readFolder(
  root: string,
  dir: string,
  label: string,
  format: ImportFormat | undefined,
  config: MemConfig,
  skipped: SkipCounts,
): Promise<{ format: ImportFormat; conversations: ImportedConversation[] }> {
  const all = await readdir(dir, { recursive: true, withFileTypes: true });
  const json = all
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.json'))
    .map((e) => join(e.parentPath, e.name))
    .filter(
      (p) =>
        !relative(dir, p)
          .split(/[\\/]/)
          .some((part) => part.startsWith('.')),
    )
    .sort();
  const chosen = format ?? (json.length > 0 && (await listMarkdown(dir)).length === 0 ? 'vtuber' : 'journal');
  if (chosen === 'vtuber') {
    if (json.length === 0) throw unknownFormat(label, 'the folder holds no .json chat history');
    const conversations: ImportedConversation[] = [];
    for (const path of json) {
      const name = `${label}/${relative(dir, path)}`;
      conversations.push(
        parseVtuberHistory(
          parseJson(await readText(path, name), name),
          name,
          config.timezone,
          config.speakers,
          skipped,
        ),
      );
    }
    return { format: 'vtuber', conversations };
  }
  if (chosen !== 'journal')
    throw unknownFormat(label, `a folder is read as journals or vtuber histories, not ${chosen}`);
  const files = await listMarkdown(dir);
  const conversations: ImportedConversation[] = [];
  const layout = layoutOf(config);
  const realRoot = await realpath(root).catch(() => root);
  for (const path of files) {
    const rel = relative(dir, path);
    // The vault's own episodes read as journals would be imported into themselves, growing each run.
    const inVault = relative(realRoot, await realpath(path))
      .split(sep)
      .join('/');
    if (!inVault.startsWith('..') && layerOf(inVault, layout) === 'episodes') {
      countSkip(skipped, "the vault's own episode note");
      continue;
    }
    const day = journalDay(rel);
    if (!day) {
      countSkip(skipped, 'Markdown file without a date in its name');
      continue;
    }
    conversations.push({ title: rel, turns: parseJournalDay(await readText(path, `${label}/${rel}`), day) });
  }
  if (conversations.length === 0)
    throw unknownFormat(label, 'the folder holds no Markdown file named by a date');
  return { format: 'journal', conversations };
}

function parseFile(
  text: string,
  label: string,
  format: ImportFormat,
  config: MemConfig,
  skipped: SkipCounts,
): ImportedConversation[] {
  switch (format) {
    case 'chatgpt':
      return parseChatGptExport(parseJson(text, label), label, skipped);
    case 'claude':
      return parseClaudeExport(parseJson(text, label), label, config.timezone, skipped);
    case 'vtuber':
      return [parseVtuberHistory(parseJson(text, label), label, config.timezone, config.speakers, skipped)];
    case 'journal': {
      const day = journalDay(label);
      if (!day)
        throw unknownFormat(
          label,
          'a journal file is named by its date (2024-03-05.md, 2024/03/05.md, 20240305.md)',
        );
      return [{ title: label, turns: parseJournalDay(text, day) }];
    }
    default:
      throw new MemError('INVALID_ARGUMENT', `${format}: not a conversation format`);
  }
}

/**
 * The turns to write, each checked on its own before anything is written: one whose time is not a
 * real instant or names no daily note (past 9999) is left out and counted, and so is a message of
 * an export that says nowhere when it was, rather than filed under today. A journal's turns are
 * dated by their file's day.
 */
function datedTurns(
  conversations: ImportedConversation[],
  format: ImportFormat,
  timeZone: string,
  skipped: SkipCounts,
): IngestTurn[] {
  const turns: IngestTurn[] = [];
  for (const conversation of conversations) {
    for (const turn of conversation.turns) {
      if (turn.at !== undefined && !(Number.isFinite(turn.at.getTime()) && hasNoteDay(turn.at, timeZone)))
        countSkip(skipped, BAD_TIME);
      else if (turn.at === undefined && turn.day === undefined && format !== 'journal')
        countSkip(skipped, NO_TIME);
      else turns.push(turn);
    }
  }
  return turns;
}

/**
 * Imports a past conversation history into the vault: ChatGPT's or Claude's data export, an
 * Open-LLM-VTuber chat history (a file or its folder) or a folder of Markdown journals become
 * daily episode entries with speakers and times (through ingest, so a second run adds nothing);
 * an MCP memory graph becomes profile notes. The whole source is read and checked before
 * anything is written: a broken file writes nothing.
 */
export async function importHistory(
  root: string,
  config: MemConfig,
  source: string,
  options: ImportOptions & { now: Date },
): Promise<ImportResult> {
  const label = basename(source);
  const info = await stat(source).catch((error: NodeJS.ErrnoException) => {
    throw new MemError('NOT_FOUND', `cannot read ${source}: ${error.code ?? error.message}`);
  });
  const skipped: SkipCounts = {};
  if (!info.isDirectory() && !info.isFile()) throw unknownFormat(label, 'not a file or folder');
  let format: ImportFormat;
  let conversations: ImportedConversation[];
  if (info.isDirectory()) {
    ({ format, conversations } = await readFolder(root, source, label, options.format, config, skipped));
  } else {
    const text = await readText(source, label);
    format = options.format ?? detectFileFormat(text, label);
    if (format === 'mcp-memory') {
      const graph = parseMemoryGraph(text, label);
      const written = await writeMemoryGraph(root, config, graph, {
        name: label,
        now: options.now,
        noRedact: options.noRedact,
        notes: options.notes,
        onProgress: options.onProgress && ((done, total) => options.onProgress?.(done, total, 'notes')),
      });
      const { created, updated, added, skipped: already, paths, redacted, refused, ...commit } = written;
      for (const [why, n] of Object.entries(refused)) countSkip(skipped, why, n);
      return {
        format,
        conversations: graph.entities.length,
        added,
        already,
        skipped,
        days: [],
        created,
        updated,
        paths,
        redacted,
        ...commit,
      };
    }
    conversations = parseFile(text, label, format, config, skipped);
  }
  const turns = datedTurns(conversations, format, config.timezone, skipped);
  // An export lists conversations newest first (or by title): in time order, a day reads as it
  // happened. The sort is stable and block ids do not depend on order, so a re-run matches.
  if (format !== 'journal' && turns.every((t) => t.at))
    turns.sort((a, b) => a.at!.getTime() - b.at!.getTime());
  const result = await ingestTurns(root, config, turns, {
    name: label,
    verb: 'import',
    at: options.now,
    noRedact: options.noRedact,
    onProgress: options.onProgress && ((done, total) => options.onProgress?.(done, total, 'days')),
  });
  const { added, skipped: already, days, paths, redacted, ...commit } = result;
  return {
    format,
    conversations: conversations.filter((c) => c.turns.length > 0).length,
    added,
    already,
    skipped,
    days,
    created: [],
    updated: [],
    paths,
    redacted,
    ...commit,
  };
}
