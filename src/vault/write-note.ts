import { createHash } from 'node:crypto';
import { closeSync, fstatSync } from 'node:fs';
import { link, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeUtf8 } from '../core/decode-utf8.js';
import { MemError } from '../core/errors.js';
import {
  fsyncDescriptor,
  openRegularFileSync,
  readRegularFile,
  statOrUndefined,
  writeAllSync,
} from '../core/regular-file.js';
import { writeError } from '../core/write-error.js';
import { crashPoint } from './crash-point.js';
import { grownText } from './grown-text.js';
import { racePoint } from './race-point.js';
import { type FileRead, isWhole, readSteady, readSteadySoon, settledRead, statKey } from './steady-read.js';
import { tempPathFor } from './temp-name.js';

export interface WriteOptions {
  /** sha256 hex the file must still have; `null`: the file must not exist; undefined: no check */
  expectedHash?: string | null;
  /** Name used in error messages, e.g. the vault-relative path (default: the absolute path) */
  label?: string;
}

export interface UpdateOptions {
  /** How many times to re-read and re-run the transform after a conflict (default: 5) */
  retries?: number;
  /** Name used in error messages (default: the absolute path) */
  label?: string;
}

export function hashText(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Reads a file with the sha256 of its raw bytes; undefined when it does not exist. Only a regular
 * file is read (see regular-file.ts). `text` throws INVALID_ARGUMENT when the bytes are not UTF-8:
 * every rewrite starts from it, so no command can write back a note it could not decode, while
 * callers that only compare hashes (a delete, an undo, a conflict check) still work on such a note.
 */
export async function readForWrite(abs: string): Promise<{ text: string; hash: string } | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let text: string | undefined;
  return {
    get text() {
      text ??= decodeUtf8(bytes, abs);
      return text;
    },
    hash: hashText(bytes),
  };
}

async function currentHash(abs: string): Promise<string | null> {
  const current = await readForWrite(abs);
  return current === undefined ? null : current.hash;
}

function conflict(label: string): MemError {
  return new MemError('CONFLICT', `${label} changed on disk since it was read; nothing was written`);
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** Flushes the folder entry so the rename survives a crash; not every platform allows it. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: Windows and some network file systems cannot fsync a folder.
  }
}

/**
 * Writes a whole file atomically: a unique dot-prefixed temp file in the same folder (watchers and
 * Obsidian ignore it), fsync, compare-and-swap against `expectedHash`, then rename over the target.
 * A reader sees the old file or the new one, never a half-written one.
 */
export async function writeAtomic(
  abs: string,
  text: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const label = options.label ?? abs;
  let mode: number | undefined;
  try {
    const info = await lstat(abs);
    if (info.isSymbolicLink()) {
      throw new MemError('INVALID_PATH', `${label} is a symlink; mem does not write through symlinks`);
    }
    if (!info.isFile()) throw new MemError('INVALID_PATH', `${label} is not a regular file`);
    mode = info.mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }

  const dir = dirname(abs);
  await mkdir(dir, { recursive: true });
  // pid + random bytes: two writers (or two processes) never share a temp name.
  const temp = tempPathFor(abs);
  try {
    const handle = await open(temp, 'wx', mode ?? 0o644);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    crashPoint();

    if (options.expectedHash === null) {
      // Creating: link() fails when the target appeared meanwhile, so this check has no window at all.
      try {
        await link(temp, abs);
        crashPoint();
        await removeQuietly(temp);
        await syncFolder(dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw conflict(label);
        // File systems without hard links fall through to check-then-rename.
      }
    }
    if (options.expectedHash === undefined) {
      await rename(temp, abs);
      await syncFolder(dir);
      crashPoint();
      return;
    }
    // Keep a second name for the file being replaced, so it can be re-checked after the rename: an
    // editor that saved in place between the check and the rename wrote into that file.
    const displaced = `${temp}.old`;
    const linked = await link(abs, displaced).then(
      () => true,
      () => false,
    );
    try {
      const before = linked ? await currentHash(displaced) : await currentHash(abs);
      if (before !== options.expectedHash) throw conflict(label);
      await rename(temp, abs);
      if (linked && (await currentHash(displaced)) !== options.expectedHash) {
        // The hand edit landed in the replaced file: put it back (when nothing newer came since)
        // and report a conflict, so the caller re-reads and tries again on top of it.
        if ((await currentHash(abs)) === hashText(text)) await rename(displaced, abs);
        throw conflict(label);
      }
      await syncFolder(dir);
      crashPoint();
    } finally {
      if (linked) await removeQuietly(displaced);
    }
  } catch (error) {
    await removeQuietly(temp);
    throw writeError(label, error);
  }
}

/**
 * Read, transform, write with compare-and-swap; on a conflict the transform runs again on the new
 * content (so an append never overwrites a hand edit). `transform` returns undefined for "no change".
 */
export async function updateFile(
  abs: string,
  transform: (current: string | undefined) => string | undefined,
  options: UpdateOptions = {},
): Promise<{ text: string | undefined; changed: boolean }> {
  const retries = options.retries ?? 5;
  const label = options.label ?? abs;
  for (let attempt = 0; ; attempt++) {
    const current = await readForWrite(abs);
    const next = transform(current?.text);
    if (next === undefined || next === current?.text) return { text: current?.text, changed: false };
    try {
      await writeAtomic(abs, next, { expectedHash: current?.hash ?? null, label });
      return { text: next, changed: true };
    } catch (error) {
      if (!(error instanceof MemError) || error.code !== 'CONFLICT') throw error;
      if (attempt >= retries) {
        throw new MemError(
          'CONFLICT',
          `${label} kept changing on disk (${attempt + 1} attempts); nothing was written`,
          {
            cause: error,
          },
        );
      }
    }
  }
}

export interface AppendOptions {
  /** Name used in error messages (default: the absolute path) */
  label?: string;
  /** How many times to append again when a concurrent save dropped the lines (default: 20) */
  retries?: number;
}

/**
 * Appends lines to a file without rewriting it, so a hand edit saved meanwhile is never replaced:
 * `plan` gets the current text (undefined when there is none) and returns the text to add, or
 * undefined for nothing (it is called again on every retry, so it can skip what is already there).
 * Lines that belong before the end (under a heading a person's text follows) come back as
 * `{ replace }`, the whole new text, written by compare-and-swap against the text `plan` was given.
 * A missing file is created whole. After the write the file is read back: an editor that saved its
 * older buffer over the append (in place or by rename) dropped the lines, so they are appended
 * again, after a jittered back-off, until a read finds them and the file has stopped changing.
 * Returns the text the file held when the lines were found in it.
 */
export async function appendVerified(
  abs: string,
  plan: (current: string | undefined) => string | { replace: string } | undefined,
  present: (text: string) => boolean,
  options: AppendOptions = {},
): Promise<{ text: string | undefined; changed: boolean }> {
  const label = options.label ?? abs;
  const retries = options.retries ?? 20;
  let changed = false;
  let ours: string | undefined;
  // An append opens the path and would write through a symlink into whatever it names (a link a
  // remote committed in place of a day note), and git would then commit the link, not the text.
  // Synchronously: one system call, where a thread-pool round trip cost more (on every chat turn).
  const found = statOrUndefined(abs, true);
  if (found?.isSymbolicLink())
    throw new MemError(
      'INVALID_PATH',
      `${label} is a symlink; mem appends only to a regular file. Replace the link with the note it points to; nothing was written`,
    );
  // Appends that found the file changed between their read and their write, each planned again.
  let stale = 0;
  for (let attempt = 0; attempt <= retries; attempt++) {
    // A try again reads the file: what was kept of it may be what made the last try fail (a
    // clock too coarse to show a same-size rewrite in its stat).
    if (attempt > 0 || stale > 0) ownTexts.delete(abs);
    racePoint('before-read', abs);
    // The first look is the lstat above (nothing was written since).
    const info = attempt === 0 && stale === 0 ? found : await lstat(abs).catch(() => undefined);
    const own = info && ownWrites.get(abs);
    const asLeft = own !== undefined && own.key === statKey(info!);
    const foreignAt = !info ? undefined : asLeft ? own.foreignAt : info.mtimeMs;
    // An editor saving an older copy does so soon after its last save; a file nobody else has
    // changed for QUIET_MS has no such save pending, and one read back is enough.
    const quiet = foreignAt === undefined || Date.now() - foreignAt > QUIET_MS;
    // A file just as this process's last append left it is that append's text, not read again:
    // the read back below still compares the whole file with it and what is appended.
    const kept = quiet && asLeft ? ownText(abs, own.key) : undefined;
    let current = kept;
    if (!kept) {
      const seen = seenText(abs);
      let read = quiet ? readSteady(abs) : undefined;
      // A quiet file read empty, cut short or while a write ran is being saved right now after all.
      if (!quiet || !isWhole(read, seen)) {
        try {
          read = await settledRead(abs, label, seen);
        } catch (error) {
          if (!(error instanceof MemError) || error.code !== 'CONFLICT') throw error;
          continue;
        }
      }
      current = read && textOf(abs, read);
    }
    racePoint('after-read', abs);
    const planned = plan(current?.text);
    const replace = typeof planned === 'object' && current !== undefined ? planned.replace : undefined;
    const addition =
      typeof planned === 'object' ? (current === undefined ? planned.replace : undefined) : planned;
    if (replace === undefined && (addition === undefined || addition === '')) {
      if (current !== undefined && !changed) return { text: current.text, changed: false };
    } else {
      if (current === undefined || replace !== undefined) {
        try {
          await writeAtomic(abs, replace ?? addition!, { expectedHash: current?.hash ?? null, label });
        } catch (error) {
          if (!(error instanceof MemError) || error.code !== 'CONFLICT') throw error;
          continue;
        }
      } else if (!(await appendBytes(abs, addition!, label, current.key))) {
        // Saved (or deleted) since the read: the plan may add lines the file holds now. Planned
        // again on a new read, which the next look at the file makes.
        if (++stale > STALE_REPLANS) break;
        attempt--;
        continue;
      }
      changed = true;
      racePoint('after-write', abs);
      const read = await readSteadySoon(abs);
      const after = read?.steady ? madeByWrite(abs, read, current, replace, addition!) : undefined;
      ours = after?.text;
      // Only a text mem's append was found to make: a save's first part must not become the text a
      // later read is compared with.
      if (ours !== undefined) seeText(abs, read!.bytes);
      // Nobody but mem touched the file lately, and nobody around the write: one read suffices.
      if (quiet && after !== undefined && ours !== undefined) {
        keepOwnWrite(abs, after.key, foreignAt ?? 0, after);
        return { text: after.text, changed };
      }
    }
    // Someone saved the file meanwhile: an editor that read it before the append may still be
    // writing its older copy. The lines count as written when they are still there a moment later.
    // Two looks, ~15 and ~75 ms on: an editor's read-then-save under load can take that long.
    let later: { text: string } | undefined;
    for (const wait of CONFIRM_WAITS) {
      await sleep(wait * 2 ** Math.min(attempt, 3) * (0.5 + Math.random()));
      later = await readForWrite(abs);
      if (later === undefined || !present(later.text)) break;
    }
    if (later !== undefined && present(later.text)) {
      // The file as this append left it, untouched through the looks: nobody was at work around
      // the write, so the last foreign change stays as old as it was (else a busy writer that
      // once saw a foreign change would take this slow path for as long as it keeps writing).
      // Anything else means another writer was at work just now.
      await noteOwnWrite(abs, ours !== undefined && later.text === ours ? (foreignAt ?? 0) : Date.now());
      return { text: later.text, changed };
    }
  }
  throw new MemError(
    'CONFLICT',
    `${label} kept changing on disk while mem appended to it; mem's lines may be missing from it`,
  );
}

/**
 * Per file: the text this process last found in it after one of its appends, for a short while. A
 * read that is the first part of it is taken for a save under way (see steady-read.ts), not for the
 * note: an append planned on it would put back lines the rest of the save still holds.
 */
const seenTexts = new Map<string, { bytes: Buffer; at: number }>();
const SEEN_MS = 10_000;

function seeText(abs: string, bytes: Buffer): void {
  seenTexts.delete(abs);
  seenTexts.set(abs, { bytes, at: Date.now() });
  if (seenTexts.size > OWN_TEXTS) seenTexts.delete(seenTexts.keys().next().value!);
}

function seenText(abs: string): Buffer | undefined {
  const seen = seenTexts.get(abs);
  return seen && Date.now() - seen.at < SEEN_MS ? seen.bytes : undefined;
}

/** How many times an append planned again because the file was saved between its read and its write. */
const STALE_REPLANS = 50;

/** A file's text as a read found it, with its bytes, their hash and the file's stat key. */
export interface OwnRead {
  text: string;
  hash: string;
  key: string;
  bytes: Buffer;
}

/** A read's text (UTF-8, or INVALID_ARGUMENT as readForWrite's text), hash and stat key. */
function textOf(abs: string, read: FileRead): OwnRead {
  return { text: decodeUtf8(read.bytes, abs), hash: hashText(read.bytes), key: read.key, bytes: read.bytes };
}

/**
 * The file read back after a write, when it holds exactly what the write made of `current`: the
 * text before with `addition` after it, or `replace`, or (for a note that was not there) `addition`
 * alone. Undefined when the file holds anything else. An append compares bytes, the ones read
 * before and the ones appended, and its text is the two texts joined (grown-text.ts): a chat turn
 * neither decodes the whole day again nor makes a copy of it to compare.
 */
function madeByWrite(
  abs: string,
  read: FileRead,
  current: OwnRead | undefined,
  replace: string | undefined,
  addition: string,
): OwnRead | undefined {
  const { bytes } = read;
  if (current !== undefined && replace === undefined) {
    const added = Buffer.from(addition, 'utf8');
    const start = current.bytes.length;
    // A lone surrogate is written as U+FFFD: the text read back would not be the two joined.
    if (added.toString('utf8') === addition) {
      const same =
        bytes.length === start + added.length &&
        bytes.compare(current.bytes, 0, start, 0, start) === 0 &&
        bytes.compare(added, 0, added.length, start) === 0;
      return same
        ? { text: grownText(current.text, addition), hash: hashText(bytes), key: read.key, bytes }
        : undefined;
    }
  }
  const after = textOf(abs, read);
  const expected = replace ?? (current?.text ?? '') + addition;
  return after.text === expected ? after : undefined;
}

/** Waits before each look that confirms appended lines survived a concurrent save (ms, jittered). */
const CONFIRM_WAITS = [15, 60];

/** Past this, a file nobody has saved is taken to have no editor saving it right now. */
const QUIET_MS = 2000;

/**
 * Per file: size, mtime and inode after this process's last verified append (its own writes, when
 * nobody else was at work, are not someone else's), and when another writer was last seen.
 */
const ownWrites = new Map<string, { key: string; foreignAt: number }>();

/**
 * The text (and hash) of the last few files this process appended to, as the read that verified
 * the append found them, under the stat key the file had before that read: a day's next append and
 * the index's read of it take it from here while the file's stat is still that, instead of
 * reading, decoding and hashing the whole day again (its cost grew with the day). A change made
 * during the read gives the file a newer stat than the one kept, so it is read again.
 */
const ownTexts = new Map<string, OwnRead>();
const OWN_TEXTS = 8;

async function noteOwnWrite(abs: string, foreignAt: number): Promise<void> {
  const info = await lstat(abs).catch(() => undefined);
  if (info) keepOwnWrite(abs, statKey(info), foreignAt);
}

function keepOwnWrite(abs: string, key: string, foreignAt: number, read?: OwnRead): void {
  ownWrites.set(abs, { key, foreignAt });
  if (ownWrites.size > 1000) ownWrites.delete(ownWrites.keys().next().value!);
  ownTexts.delete(abs);
  if (!read) return;
  ownTexts.set(abs, { ...read, key });
  if (ownTexts.size > OWN_TEXTS) ownTexts.delete(ownTexts.keys().next().value!);
}

/**
 * The text, hash and bytes of the file at `abs` as this process's last append left it, when `key`
 * (its stat now) is still the one it had then; else undefined (read it).
 */
export function ownText(abs: string, key: string): OwnRead | undefined {
  const own = ownTexts.get(abs);
  return own?.key === key ? own : undefined;
}

/**
 * Appends through O_APPEND, so the bytes go after whatever the file holds at that moment: only
 * when the file is still as read (stat `key`); false, writing nothing, when it was saved or
 * deleted since.
 */
async function appendBytes(abs: string, text: string, label: string, key: string): Promise<boolean> {
  // The lstat, open, write and close synchronously (a chat turn's line into the page cache: each
  // was a thread-pool round trip costing more than the call); the fsync, which waits on the disk,
  // through the pool.
  const info = statOrUndefined(abs, true);
  if (info?.isSymbolicLink()) {
    throw new MemError('INVALID_PATH', `${label} is a symlink; mem does not write through symlinks`);
  }
  let fd: number;
  try {
    // Not made again when it was deleted since the read: planned again, from a missing note.
    fd = openRegularFileSync(abs, 'append-existing');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw writeError(label, error);
  }
  try {
    if (statKey(fstatSync(fd)) !== key) return false;
    racePoint('before-write', abs);
    writeAllSync(fd, text);
    await fsyncDescriptor(fd);
    return true;
  } catch (error) {
    throw writeError(label, error);
  } finally {
    closeSync(fd);
  }
}
