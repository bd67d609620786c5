// `mem status`: what a person asks first about a vault, answered from what is on disk without
// opening the vault (no index is built, no daemon started): names, mtimes, small JSON records, git.
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE, loadConfig } from '../core/config/config.js';
import { isConflictNote } from '../core/conflict-note.js';
import { isIgnoredName } from '../core/ignored-path.js';
import { readRegularText } from '../core/regular-file.js';
import { readServeRecord } from '../core/serve-record.js';
import { CACHE_DIR } from '../core/vault-files.js';
import { listSetAside, readPendingPlan } from '../git/pending-plan.js';
import { git } from '../git/run-git.js';
import { findVaultRepo } from '../git/vault-git.js';
import { CACHE_SCHEMA } from '../indexing/index-cache.js';
import { parseInstant } from '../time/parse-instant.js';
import { isDayOver } from '../time/zoned-date.js';
import { dayOfPath, layoutOf, type VaultLayout } from '../vault/layout.js';
import { readDailyNoteSettings } from '../vault/links/obsidian-settings.js';
import { hasItem } from '../vault/markdown/journal-items.js';
import { readProposedConfig } from '../write/sync/sync-trust.js';

export interface VaultStatus {
  root: string;
  /** mem.config.json is present (else the folder is read as it is, not a vault of mem's) */
  configured: boolean;
  timezone: string;
  notes: number;
  index: {
    /** `fresh`: the cache holds every note as it is now; `stale`: a note changed, came or went since */
    state: 'fresh' | 'stale' | 'missing' | 'corrupt';
    /** Notes in the cache */
    notes?: number;
    savedAt?: string;
    reason?: string;
  };
  /** A running `mem serve` and background daemon (records whose process is gone are ignored) */
  server?: { url: string; pid: number; version: string };
  daemon?: { url: string; pid: number; version: string };
  git?: {
    branch: string;
    clean: boolean;
    /** Files under the vault with changes not committed (untracked ones included) */
    uncommitted: number;
    lastCommit?: { sha: string; date: string; subject: string };
  };
  reflection: {
    /** The last commit reflect made */
    lastRun?: { sha: string; date: string; subject: string };
    /** Daily notes with entries reflect has not seen yet */
    pendingDays: number;
    /** The oldest such day (reflect takes the oldest first) */
    oldestPending?: string;
  };
  /** Conflict notes `mem sync` left (the other side's version of a note both changed) */
  conflicts: string[];
  /** A write that was killed before its commit (the next write commits it) */
  lastError?: string;
  /** Plan records mem did not trust (a remote's, or not a record): set aside, with the reason */
  setAside: string[];
  /** Model, embeddings or hook settings a remote proposed at `mem sync`, waiting for `mem config accept` */
  proposedConfig?: { from: string; values: Record<string, unknown> };
  /** Where mem writes the days (`layout.daily`), and Obsidian's own setting when it differs */
  days: {
    folder: string;
    format: string;
    obsidian?: { folder: string; format: string; source: string };
  };
}

interface NoteFile {
  path: string;
  mtimeMs: number;
}

/** Every note below `root` with its mtime; symlinks are not followed (as core/count-notes.ts). */
function listNotes(root: string): NoteFile[] {
  const found: NoteFile[] = [];
  const folders = [''];
  for (let dir = folders.pop(); dir !== undefined; dir = folders.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (isIgnoredName(entry.name)) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) folders.push(path);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
        try {
          found.push({ path, mtimeMs: statSync(join(root, path)).mtimeMs });
        } catch {
          // Removed while listed.
        }
      }
    }
  }
  return found;
}

/**
 * The index cache's manifest (indexing/index-cache.ts writes it), read for its count and save
 * time only: loading the cache itself takes seconds on a large vault.
 */
async function indexState(root: string, notes: NoteFile[]): Promise<VaultStatus['index']> {
  let manifest: { schema?: unknown; notes?: unknown; savedAt?: unknown };
  try {
    manifest = JSON.parse(await readRegularText(join(root, CACHE_DIR, 'index', 'manifest.json')));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? { state: 'missing', reason: 'no index cache yet: the next command builds it' }
      : { state: 'corrupt', reason: 'the index cache could not be read: the next command rebuilds it' };
  }
  const count = typeof manifest.notes === 'number' ? manifest.notes : undefined;
  const savedAt = typeof manifest.savedAt === 'string' ? manifest.savedAt : undefined;
  const base = { ...(count !== undefined ? { notes: count } : {}), ...(savedAt ? { savedAt } : {}) };
  if (manifest.schema !== CACHE_SCHEMA)
    return { state: 'stale', ...base, reason: `the cache is from schema ${String(manifest.schema)}` };
  const saved = savedAt ? Date.parse(savedAt) : Number.NaN;
  if (Number.isNaN(saved)) return { state: 'corrupt', ...base, reason: 'the cache has no save time' };
  const changed = notes.filter((n) => n.mtimeMs > saved).length;
  if (changed > 0)
    return { state: 'stale', ...base, reason: `${changed} note${changed === 1 ? '' : 's'} changed since` };
  if (count !== notes.length)
    return { state: 'stale', ...base, reason: `${count ?? 0} notes in the cache, ${notes.length} on disk` };
  return { state: 'fresh', ...base };
}

/**
 * Whether a daily note has entries, as reflect counts them (a block with an id: `- 09:00 user: tea
 * ^e1`, or the person's own journal: a line of theirs under its headings, not a template's empty
 * task, see isJournalSection), and its frontmatter's `reflected:` stamp. A day's note is a few KB:
 * read whole, and read by its lines: parsing each day took five times as long.
 */
async function dailyNote(abs: string): Promise<{ entries: boolean; reflected?: string }> {
  const text = await readRegularText(abs).catch(() => '');
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  const reflected = front && /^reflected:\s*['"]?([^'"\r\n]+?)['"]?\s*$/m.exec(front)?.[1];
  const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---(?:\r?\n|$)/, '');
  const entries = /\s\^[A-Za-z0-9-]+[ \t]*$/m.test(text) || hasItem(body.replace(HEADING_LINES, ''));
  return { entries, ...(reflected ? { reflected } : {}) };
}

/** ATX heading lines (`## Plan`): a day's title and its template's headings are no entry. */
const HEADING_LINES = /^ {0,3}#{1,6}(?:[ \t].*)?$/gm;

/**
 * Daily notes reflect has not seen: never marked reflected, or marked before their day was over
 * (the rule of reflect's pendingEpisodes, read from the frontmatter rather than the index).
 */
async function pendingDays(
  root: string,
  notes: NoteFile[],
  timeZone: string,
  layout: VaultLayout,
): Promise<string[]> {
  const days: string[] = [];
  for (const note of notes) {
    const day = dayOfPath(note.path, layout);
    if (!day) continue;
    const { entries, reflected } = await dailyNote(join(root, note.path));
    if (!entries) continue;
    if (!reflected) days.push(day);
    else {
      // A stamp that is no time counts as reflected, as in pendingEpisodes.
      const at = parseInstant(reflected, timeZone);
      if (at && !isDayOver(day, at, timeZone)) days.push(day);
    }
  }
  return days.sort();
}

function parseCommit(line: string | undefined): { sha: string; date: string; subject: string } | undefined {
  const [sha, date, subject] = (line ?? '').trim().split('\x00');
  return sha && date && subject !== undefined ? { sha, date, subject } : undefined;
}

async function gitState(
  root: string,
): Promise<{ git?: VaultStatus['git']; lastReflect?: VaultStatus['reflection']['lastRun'] }> {
  const repo = await findVaultRepo(root);
  if (!repo) return {};
  const scope = repo.prefix ? ['--', repo.prefix] : [];
  const format = '--format=%h%x00%cI%x00%s';
  const [branch, status, last, reflect] = await Promise.all([
    git(repo.repo, ['rev-parse', '--abbrev-ref', 'HEAD'], { allowFail: true }),
    git(repo.repo, ['status', '--porcelain', '--untracked-files=all', ...scope], { allowFail: true }),
    git(repo.repo, ['log', '-1', format, ...scope], { allowFail: true }),
    git(repo.repo, ['log', '-1', '--grep=^mem: reflect', format, ...scope], { allowFail: true }),
  ]);
  const uncommitted = (status ?? '').split('\n').filter((line) => line.trim() !== '').length;
  const lastCommit = parseCommit(last);
  const lastReflect = parseCommit(reflect);
  return {
    git: {
      // A repository without commits answers HEAD itself.
      branch: branch?.trim() || 'HEAD',
      clean: uncommitted === 0,
      uncommitted,
      ...(lastCommit ? { lastCommit } : {}),
    },
    ...(lastReflect ? { lastReflect } : {}),
  };
}

/** The vault's state, read without opening it: fast, and it never starts a server or daemon. */
export async function vaultStatus(root: string): Promise<VaultStatus> {
  const configured = await readRegularText(join(root, CONFIG_FILE)).then(
    () => true,
    () => false,
  );
  const config = await loadConfig(root);
  const notes = listNotes(root);
  const [index, server, daemon, repo, pending, plan, aside, proposed] = await Promise.all([
    indexState(root, notes),
    readServeRecord(root, 'serve'),
    readServeRecord(root, 'daemon'),
    gitState(root),
    pendingDays(root, notes, config.timezone, layoutOf(config)),
    readPendingPlan(root).catch(() => undefined),
    listSetAside(root),
    readProposedConfig(root),
  ]);
  // Settings Obsidian cannot give (a malformed file) say nothing here; mem init reports them.
  const obsidian = await readDailyNoteSettings(root).catch(() => undefined);
  const { folder, format } = config.layout.daily;
  const drift = obsidian && (obsidian.folder !== folder || obsidian.format !== format);
  const process = (r: typeof server) => (r ? { url: r.url, pid: r.pid, version: r.version } : undefined);
  return {
    root,
    configured,
    timezone: config.timezone,
    notes: notes.length,
    index,
    ...(server ? { server: process(server) } : {}),
    ...(daemon ? { daemon: process(daemon) } : {}),
    ...(repo.git ? { git: repo.git } : {}),
    conflicts: notes
      .map((n) => n.path)
      .filter(isConflictNote)
      .sort(),
    reflection: {
      ...(repo.lastReflect ? { lastRun: repo.lastReflect } : {}),
      pendingDays: pending.length,
      ...(pending[0] ? { oldestPending: pending[0] } : {}),
    },
    ...(plan
      ? {
          lastError: `a write was stopped before its commit ("${plan.message}"); the next mem write commits it`,
        }
      : {}),
    setAside: aside.map((a) => `${a.file}: ${a.reason}`),
    ...(proposed ? { proposedConfig: proposed } : {}),
    days: {
      folder,
      format,
      ...(drift
        ? { obsidian: { folder: obsidian.folder, format: obsidian.format, source: obsidian.source } }
        : {}),
    },
  };
}
