import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type MemConfig, speakerName } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import { readRegularText, statOrUndefined } from '../core/regular-file.js';
import { TEMPLATES_DIR } from '../core/templates-dir.js';
import type { DeriveContent } from '../git/commit-paths.js';
import { commitWrite, type WriteCommit } from '../git/commit-write.js';
import { createdByMem, recordCreated } from '../git/created-files.js';
import { dayOf, timeOfDay } from '../time/zoned-date.js';
import { dailyNotePath, dayOfPath, layoutOf, type VaultLayout } from '../vault/layout.js';
import { withVaultLock } from '../vault/lock.js';
import { entryText } from '../vault/markdown/entry-text.js';
import { resolveInVault } from '../vault/paths.js';
import { statKey } from '../vault/steady-read.js';
import { appendVerified, ownText } from '../vault/write-note.js';
import { blockIdFloor, raiseBlockIdFloor, readFloors } from './block-id-floor.js';
import { DayDraft, holdsIn, lineSet, placeEntries, readingOf } from './day-draft.js';
import { deviceTag } from './device-tag.js';
import { type EntryKind, renderEntry } from './episode-entry.js';
import { fillTemplate } from './init/fill-template.js';
import { redactSecrets } from './redact/redact.js';

export interface RememberInput {
  /** What happened or was said */
  text: string;
  /** Who said it (chat entries), e.g. `Rain` */
  speaker?: string;
  /** `chat` (default), `event` or `note` */
  kind?: EntryKind;
  /** 0..1, written as an inline field */
  importance?: number;
  tags?: string[];
  /** When it happened (default: now); decides the daily note */
  at?: Date;
  /** Keep text that looks like a secret (default: false, secrets are redacted) */
  noRedact?: boolean;
  /**
   * Commit the daily note now (default: true). A caller that writes many entries in a row (a chat
   * server) passes false and commits them together afterwards.
   */
  commit?: boolean;
}

export interface RememberResult extends WriteCommit {
  /** Vault path of the daily note */
  path: string;
  blockId: string;
  /** Citation of the new entry, e.g. `[[2026-11-30#^e7]]` */
  link: string;
  /** How many secrets were redacted */
  redacted: number;
  /** The line appended to the note, as written */
  lines: string[];
  /** Whether this write made the day's note (else it added to a note that was there) */
  created: boolean;
}

export interface DayEntry {
  text: string;
  time: string;
  speaker?: string;
  kind?: EntryKind;
  tags?: string[];
  importance?: number;
  /** A fixed block id (ingest uses content-derived ids so a second import adds nothing) */
  blockId?: string;
}

/**
 * What to commit for a daily note that mem appended `lines` to: the committed note (or the new
 * note's template) plus those lines, never a person's edit made meanwhile. A line the commit
 * already has is not added twice (a commit a crash interrupted may have taken it).
 */
function deriveDay(
  template: string,
  lines: string[],
  heading: string | undefined,
  /** Whether mem made the note (false: a person's note, which git may not have) */
  created?: boolean,
): DeriveContent {
  return (committed) => {
    // A person's note git does not have: mem commits no version of it that never was on disk.
    if (committed === undefined && created === false) return undefined;
    // Looked up in one reading of the note and placed in one splice: linear in the day's length.
    const held = committed === undefined ? undefined : lineSet(committed);
    const missing = lines.filter((line) => !held || !holdsIn(held, line));
    return placeEntries(committed ?? template, missing, heading);
  };
}

/**
 * `text` with one more entry line: at the end, or, when the layout names a heading (a daily note
 * a person also writes in), at the end of the section under it (made at the end when missing).
 * Every other byte stays as it was.
 */
export function placeEntry(text: string, line: string, heading: string | undefined): string {
  return placeEntries(text, [line], heading);
}

/** `deriveDay` for a daily note of the layout; undefined for any other path. */
export async function deriveDailyNote(
  root: string,
  config: MemConfig,
  path: string,
  lines: string[],
  /** Whether mem made the note, when known (see deriveDay) */
  created?: boolean,
): Promise<DeriveContent | undefined> {
  const layout = layoutOf(config);
  const date = dayOfPath(path, layout);
  if (!date) return undefined;
  // Made by a process killed before its commit: still mem's (git/created-files.ts).
  const ours = created === true || (await createdByMem(root, path)) ? true : created;
  return deriveDay(await dailyTemplate(root, config, date), lines, entryHeading(layout), ours);
}

/** The heading mem's entries go under, as its text (`## Memory` in the config is `Memory`). */
function entryHeading(layout: VaultLayout): string | undefined {
  const heading = layout.daily.heading?.replace(/^#+\s*/, '').trim();
  return heading || undefined;
}

/**
 * The text a new day's note starts from: the layout's template note, with Obsidian's template
 * variables filled in, or mem's own. A template that cannot be read starts the day from mem's own,
 * as Obsidian starts an empty note: the entry matters more than the template.
 */
async function dailyTemplate(root: string, config: MemConfig, date: string): Promise<string> {
  const layout = layoutOf(config);
  const own = layout.daily.template;
  if (own) {
    const path = own.endsWith('.md') ? own : `${own}.md`;
    const text = await resolveInVault(root, path)
      .then(({ abs }) => readRegularText(abs))
      .catch(() => undefined);
    if (text !== undefined) {
      const title = dailyNotePath(date, layout).replace(/^.*\//, '').replace(/\.md$/, '');
      return fillTemplate(text, { date, title, timezone: config.timezone, layout });
    }
  }
  return (await ownTemplate()).replaceAll('{{date}}', date);
}

/** mem's own daily template, a file of the package: read once per process, not on every append. */
let ownDaily: Promise<string> | undefined;
const ownTemplate = () => {
  ownDaily ??= readFile(join(TEMPLATES_DIR, 'daily.md'), 'utf8');
  // A failed read is not kept: the next append tries again.
  ownDaily.catch(() => {
    ownDaily = undefined;
  });
  return ownDaily;
};

/**
 * How long this process keeps checking that a line it appended is still in the note. An editor
 * that read the note just before an append and saves its older copy after the append's confirming
 * looks (~100 ms; longer under load) drops the line; the next append to that note puts it back.
 */
const RECHECK_MS = 10_000;

/** Per note (absolute path): lines this process appended in the last RECHECK_MS, with when. */
const recentLines = new Map<string, Array<{ line: string; at: number }>>();

function recentOf(abs: string): Array<{ line: string; at: number }> {
  const now = Date.now();
  const kept = (recentLines.get(abs) ?? []).filter((r) => now - r.at < RECHECK_MS);
  if (kept.length === 0) recentLines.delete(abs);
  else recentLines.set(abs, kept);
  return kept;
}

function noteRecent(abs: string, lines: string[]): void {
  const at = Date.now();
  const list = recentLines.get(abs) ?? [];
  list.push(...lines.map((line) => ({ line, at })));
  // Each append looks for every one of them in the note: a busy writer checks its last 200 only.
  recentLines.set(abs, list.slice(-200));
  if (recentLines.size > 100) recentLines.delete(recentLines.keys().next().value!);
}

/**
 * Told the lines an append will write (with their block ids) before it writes them, under the
 * write lock: a journal keeps them, so after a crash it can tell whether the append landed.
 */
export type OnPlanned = (path: string, lines: string[]) => Promise<void>;

/**
 * Appends entries to one day's episode note, creating it from the template. Runs under the vault's
 * write lock. The note is never rewritten (but for entries that go under the layout's heading with a
 * person's text after it, by compare-and-swap): the entries are appended and read back, and appended
 * again when an editor's save dropped them, so neither a hand edit nor an entry is lost. Entries
 * whose fixed block id is already in the note are skipped. Returns the ids and lines written.
 */
export async function appendToDay(
  root: string,
  config: MemConfig,
  date: string,
  entries: DayEntry[],
  onPlanned?: OnPlanned,
  /** The highest id number the vault's links cite in this day's note (an id cited is never reused) */
  cited = 0,
): Promise<{ path: string; ids: string[]; lines: string[]; derive: DeriveContent; created: boolean }> {
  const layout = layoutOf(config);
  const heading = entryHeading(layout);
  const { abs, rel } = await resolveInVault(root, dailyNotePath(date, layout));
  const template = await dailyTemplate(root, config, date);
  // The line each entry was written as: a retry keeps its id when it is still free.
  const written: Array<string | undefined> = entries.map(() => undefined);
  const skipped = new Set<number>();
  // Lines of earlier appends that an editor's late save dropped: appended again, before the new ones.
  const recent = recentOf(abs);
  let restored: Array<{ line: string; at: number }> = [];
  // Set under the lock, before the first plan: the highest id ever given out or cited in the note,
  // and the tag this device's new ids carry (device-tag.ts).
  let floor = cited;
  let tag: string | undefined;
  // Whether this append made the note (the last plan's view: a retry may find it made meanwhile).
  let created = false;
  const plan = (current: string | undefined): string | { replace: string } | undefined => {
    const base = current ?? template;
    created = current === undefined;
    // The note is read once; each entry is checked against that reading and the entries before it
    // (day-draft.ts): a search of the whole note per entry made a long day quadratic.
    const draft = new DayDraft(base, floor, tag, readingOf(abs, base));
    // Not into a missing note: a person who deleted the note meant it.
    restored = current === undefined ? [] : recent.filter((r) => !draft.holds(r.line));
    for (const r of restored) {
      // Another writer may have taken its block id meanwhile: then it gets the next free one.
      const id = /\^([A-Za-z0-9-]+)$/.exec(r.line)?.[1];
      if (id && draft.hasBlockId(id)) r.line = r.line.replace(/\^[A-Za-z0-9-]+$/, `^${draft.nextBlockId()}`);
      draft.add(r.line);
    }
    entries.forEach((entry, i) => {
      const line = written[i];
      if (line !== undefined && draft.holds(line)) return;
      if (line === undefined && entry.blockId && draft.hasBlockId(entry.blockId)) {
        skipped.add(i);
        return;
      }
      const earlier = line === undefined ? undefined : /\^([A-Za-z0-9-]+)$/.exec(line)?.[1];
      const blockId =
        entry.blockId ?? (earlier && !draft.hasBlockId(earlier) ? earlier : draft.nextBlockId());
      written[i] = renderEntry({ ...entry, blockId });
      draft.add(written[i]!);
    });
    // Appended at the end (no heading): only the new bytes, made without a copy of the day.
    const tail = current === undefined ? undefined : draft.tail(heading);
    if (tail !== undefined) return tail === '' ? undefined : tail;
    const text = draft.text(heading);
    if (current === undefined) return text === base ? undefined : text;
    if (text === base) return undefined;
    // Appended at the end: only the new bytes are written. Under a heading a person's text
    // follows: the whole note, by compare-and-swap against the text read.
    return text.startsWith(base) ? text.slice(base.length) : { replace: text };
  };
  const present = (text: string) => {
    const held = readingOf(abs, text).lines;
    return (
      restored.every((r) => holdsIn(held, r.line)) &&
      written.every((line, i) => skipped.has(i) || (line !== undefined && holdsIn(held, line)))
    );
  };
  let ours = false;
  await withVaultLock(root, async () => {
    // Read once: nothing but this write changes them while it holds the lock.
    const floors = await readFloors(root);
    floor = Math.max(cited, await blockIdFloor(root, rel, floors));
    // Only entries without a fixed id (an import's are derived from their content) are numbered.
    if (entries.some((e) => e.blockId === undefined) || recent.length > 0) tag = await deviceTag(root);
    // A note mem is about to make is mem's from now on, committed or not (git/created-files.ts).
    const found = statOrUndefined(abs, true);
    const made = found === undefined;
    if (made) await recordCreated(root, rel);
    if (onPlanned) {
      // Plan once on the note as it is; the append keeps these lines while their ids stay free
      // (under the lock only a hand edit can take one).
      // The note as this process's last append left it, while its stat says so (write-note.ts).
      const current =
        (found && ownText(abs, statKey(found))?.text) ??
        (await readRegularText(abs).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw error;
        }));
      plan(current);
      await onPlanned(
        rel,
        written.filter((line, i): line is string => line !== undefined && !skipped.has(i)),
      );
    }
    await appendVerified(abs, plan, present, { label: rel });
    await raiseBlockIdFloor(
      root,
      rel,
      [
        ...written.flatMap((line) => (line ? [/\^([A-Za-z0-9-]+)$/.exec(line)?.[1] ?? ''] : [])),
        ...restored.map((r) => /\^([A-Za-z0-9-]+)$/.exec(r.line)?.[1] ?? ''),
      ],
      floors,
    );
    ours = created || (await createdByMem(root, rel));
  });
  const lines = written.filter((line, i): line is string => line !== undefined && !skipped.has(i));
  noteRecent(abs, lines);
  const ids = lines.map((line) => /\^([A-Za-z0-9-]+)$/.exec(line)?.[1] ?? '');
  // What to commit: the committed note (or the template) plus these lines, never a hand edit.
  return { path: rel, ids, lines, derive: deriveDay(template, lines, heading, ours), created: ours };
}

/** The day and the entry `remember` would write for `input` (secrets redacted, times zoned). */
function entryOf(
  config: MemConfig,
  input: RememberInput,
): { date: string; entry: DayEntry; redacted: number } {
  if (typeof input.text !== 'string' || entryText(input.text) === '') {
    throw new MemError('INVALID_ARGUMENT', 'nothing to remember: the text is empty');
  }
  if (input.importance !== undefined && !(input.importance >= 0 && input.importance <= 1)) {
    // The words of remember's input schema (api/inputs/remember.ts), which the edges check first.
    throw new MemError('INVALID_ARGUMENT', '"importance" must be a number from 0 to 1');
  }
  const at = input.at ?? new Date();
  if (!Number.isFinite(at.getTime()))
    throw new MemError('INVALID_ARGUMENT', 'the entry time is not a valid date');
  const { text, redactions } = input.noRedact
    ? { text: input.text, redactions: [] }
    : redactSecrets(input.text);
  const entry: DayEntry = {
    text,
    time: timeOfDay(at, config.timezone),
    speaker: speakerName(config, input.speaker),
    kind: input.kind,
    tags: input.tags,
    importance: input.importance,
  };
  return { date: dayOf(at, config.timezone), entry, redacted: redactions.length };
}

/** Appends one entry to the day's episode note and, unless `commit` is false, commits it. */
export async function remember(
  root: string,
  config: MemConfig,
  input: RememberInput,
  citedIn?: (path: string) => number,
): Promise<RememberResult> {
  const [result] = await rememberAll(root, config, [input], undefined, citedIn);
  return result!;
}

/**
 * Appends entries (one chat exchange: the user's words and the reply) with one append per day,
 * so an exchange costs one lock, one write and one read-back; a day is committed unless every
 * entry to it says `commit: false`. `onPlanned` is told each day's lines before they are appended.
 */
export async function rememberAll(
  root: string,
  config: MemConfig,
  inputs: RememberInput[],
  onPlanned?: OnPlanned,
  /** The highest id number the vault's links cite in the note at a vault path (from the index) */
  citedIn?: (path: string) => number,
): Promise<RememberResult[]> {
  const prepared = inputs.map((input) => entryOf(config, input));
  const results: RememberResult[] = [];
  for (const date of [...new Set(prepared.map((p) => p.date))]) {
    const mine = prepared.flatMap((p, i) => (p.date === date ? [i] : []));
    const day = await appendToDay(
      root,
      config,
      date,
      mine.map((i) => prepared[i]!.entry),
      onPlanned,
      citedIn?.(dailyNotePath(date, layoutOf(config))) ?? 0,
    );
    // What is committed is the committed note plus these entries: a person's unsaved edit stays theirs.
    const commit = mine.every((i) => inputs[i]!.commit === false)
      ? { committed: false, code: 'deferred' as const, reason: 'deferred' }
      : await withVaultLock(root, (lock) =>
          commitWrite(
            lock,
            root,
            config,
            [day.path],
            `mem: remember ${date}#^${day.ids.join(', ^')}`,
            new Map([[day.path, day.derive]]),
          ),
        );
    for (const [k, i] of mine.entries()) {
      const blockId = day.ids[k] ?? '';
      results[i] = {
        path: day.path,
        blockId,
        link: `[[${day.path.slice(day.path.lastIndexOf('/') + 1, -3)}#^${blockId}]]`,
        redacted: prepared[i]!.redacted,
        lines: day.lines.slice(k, k + 1),
        created: day.created,
        ...commit,
      };
    }
  }
  return results;
}

/**
 * Whether the note at vault path `path` holds every one of `lines` as a whole line. A line mem
 * wrote ends in its block id, unique in its day, so this tells a replayed add that landed before
 * a crash from one that did not, and never mistakes an equal text said twice for it.
 */
export async function holdsLines(root: string, path: string, lines: string[]): Promise<boolean> {
  const { abs } = await resolveInVault(root, path);
  // Nothing is opened before lstat says it is a regular file (a FIFO would hang the read).
  const text = await readRegularText(abs).catch(() => undefined);
  if (text === undefined) return false;
  const held = new Set(text.split(/\r?\n/));
  return lines.every((line) => line.split('\n').every((part) => held.has(part)));
}
