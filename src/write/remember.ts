import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type MemConfig, speakerName } from '../core/config.js';
import { MemError } from '../core/errors.js';
import { TEMPLATES_DIR } from '../core/templates-dir.js';
import { commitWrite, type WriteCommit } from '../git/commit-write.js';
import { formatDay, zonedDate } from '../time/zoned-date.js';
import { withVaultLock } from '../vault/lock.js';
import { resolveInVault } from '../vault/paths.js';
import { updateFile } from '../vault/write-note.js';
import { appendLine, type EntryKind, nextBlockId, renderEntry } from './episode-entry.js';
import { redactSecrets } from './redact.js';

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
}

export interface RememberResult extends WriteCommit {
  /** Vault path of the daily note */
  path: string;
  blockId: string;
  /** Citation of the new entry, e.g. `[[2026-11-30#^e7]]` */
  link: string;
  /** How many secrets were redacted */
  redacted: number;
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

/** `HH:MM` of `at` in `timeZone`. */
export function zonedTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

export function dayOf(at: Date, timeZone: string): string {
  return formatDay(zonedDate(at, timeZone));
}

async function dailyTemplate(date: string): Promise<string> {
  const template = await readFile(join(TEMPLATES_DIR, 'daily.md'), 'utf8');
  return template.replaceAll('{{date}}', date);
}

/**
 * Appends entries to one day's episode note, creating it from the template. Runs under the vault's
 * write lock and retries on a concurrent hand edit, so nothing anyone wrote is lost. Entries whose
 * fixed block id is already in the note are skipped. Returns the ids written.
 */
export async function appendToDay(
  root: string,
  date: string,
  entries: DayEntry[],
): Promise<{ path: string; ids: string[] }> {
  const { abs, rel } = await resolveInVault(root, `episodes/daily/${date}.md`);
  const template = await dailyTemplate(date);
  let ids: string[] = [];
  await withVaultLock(root, () =>
    updateFile(
      abs,
      (current) => {
        let text = current ?? template;
        ids = [];
        for (const entry of entries) {
          if (entry.blockId && new RegExp(`\\^${entry.blockId}\\s*$`, 'm').test(text)) continue;
          const blockId = entry.blockId ?? nextBlockId(text);
          text = appendLine(text, renderEntry({ ...entry, blockId }));
          ids.push(blockId);
        }
        return ids.length > 0 ? text : undefined;
      },
      { label: rel },
    ),
  );
  return { path: rel, ids };
}

/** Appends one entry to the day's episode note and commits it. */
export async function remember(
  root: string,
  config: MemConfig,
  input: RememberInput,
): Promise<RememberResult> {
  if (typeof input.text !== 'string' || input.text.trim() === '') {
    throw new MemError('INVALID_INPUT', 'nothing to remember: the text is empty');
  }
  if (input.importance !== undefined && !(input.importance >= 0 && input.importance <= 1)) {
    throw new MemError('INVALID_INPUT', `importance must be between 0 and 1, got ${input.importance}`);
  }
  const at = input.at ?? new Date();
  if (!Number.isFinite(at.getTime()))
    throw new MemError('INVALID_INPUT', 'the entry time is not a valid date');
  const { text, redactions } = input.noRedact
    ? { text: input.text, redactions: [] }
    : redactSecrets(input.text);
  const date = dayOf(at, config.timezone);
  const { path, ids } = await appendToDay(root, date, [
    {
      text,
      time: zonedTime(at, config.timezone),
      speaker: speakerName(config, input.speaker),
      kind: input.kind,
      tags: input.tags,
      importance: input.importance,
    },
  ]);
  const blockId = ids[0] ?? '';
  const link = `[[${date}#^${blockId}]]`;
  const commit = await commitWrite(root, config, [path], `mem: remember ${date}#^${blockId}`);
  return { path, blockId, link, redacted: redactions.length, ...commit };
}
