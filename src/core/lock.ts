// An exclusive lock file with stale-lock breaking, a heartbeat and fair turns: the vault's write
// lock, and the one that lets a single command start a vault's background daemon.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemError } from './errors.js';
import { readRegularFileStatSync } from './regular-file.js';
import { writeError } from './write-error.js';

export interface LockOptions {
  /** How long to wait for the lock before throwing LOCKED (default: 10000 ms) */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a crashed process and broken (default: 30000 ms) */
  staleMs?: number;
}

interface Holder {
  pid: number;
  host: string;
  time: string;
  /** Random per acquisition, so release never removes a lock that another process now holds */
  token: string;
}

function readHolder(lockPath: string): { holder?: Holder; raw: string; mtimeMs: number } | undefined {
  try {
    // Read synchronously: a lock file is a few bytes in `.mem/`, and each write reads one or two
    // (the turn claim, the lock at release), where the thread pool cost five round trips each.
    const { bytes, info } = readRegularFileStatSync(lockPath);
    const raw = bytes.toString('utf8');
    let holder: Holder | undefined;
    try {
      holder = JSON.parse(raw) as Holder;
    } catch {
      // The holder may be between open() and write(); judged by mtime only.
    }
    return { holder, raw, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** readHolder, with a file that cannot be read taken for none. */
function readHolderQuietly(lockPath: string): ReturnType<typeof readHolder> {
  try {
    return readHolder(lockPath);
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Whether a lock was left by a holder that is gone. A live holder renews its heartbeat every
 * staleMs / 3, so a heartbeat more than staleMs away from now, in the past or in the future, is
 * stale: one stamped ahead (the clock set back since, another host's clock, a pid reused by a
 * process that never renews) once blocked every write for ever. On this host a dead pid is stale at
 * once; a lock from another host is judged by its heartbeat only (its pids are not ours to ask).
 */
function isStale(found: { holder?: Holder; mtimeMs: number }, staleMs: number): boolean {
  const { holder } = found;
  // No holder in it: one killed between its create and its write (tryCreate), after which nothing
  // renews it. Judged by its mtime, and soon: a live holder writes it within microseconds.
  if (holder === null || typeof holder !== 'object')
    return Math.abs(Date.now() - found.mtimeMs) > Math.min(staleMs, UNWRITTEN_MS);
  const stamped = holder && typeof holder.time === 'string' ? Date.parse(holder.time) : Number.NaN;
  const heartbeat = Number.isFinite(stamped) ? stamped : found.mtimeMs;
  if (Math.abs(Date.now() - heartbeat) > staleMs) return true;
  return (
    holder !== undefined &&
    holder.host === hostname() &&
    Number.isInteger(holder.pid) &&
    // 0 and negative pids name process groups, which kill(pid, 0) would find "alive".
    (holder.pid <= 0 || !isAlive(holder.pid))
  );
}

/**
 * How long a lock file with no holder in it is taken for one being written: past this, for one
 * left by a holder killed before it wrote (the next writer waited staleMs for it, past its timeout).
 */
const UNWRITTEN_MS = 5000;

/**
 * Creates the lock file (O_EXCL: only one process can) with its holder in it. Synchronously: a
 * create, a write of a hundred bytes and a close in `.mem/`, where three round trips through the
 * thread pool cost more than the calls themselves, on every write of a chat turn.
 */
function tryCreate(lockPath: string, holder: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeError(lockPath, error);
  }
  const content = JSON.stringify(holder);
  try {
    writeFileSync(fd, content);
  } catch (error) {
    // A lock left empty (a full disk) would be taken for another process's until it went stale.
    try {
      closeSync(fd);
    } catch {}
    try {
      unlinkSync(lockPath);
    } catch {}
    throw writeError(lockPath, error);
  }
  closeSync(fd);
  // A writer stalled between its create and its write may have had the empty file broken under it
  // (isStale): it holds the lock only if the file at the lock's path is the one it wrote.
  return readHolderQuietly(lockPath)?.raw === content;
}

/**
 * Breaks a stale lock. Breakers take a second lock first and re-read the holder under it, so two
 * processes that both saw the same stale lock cannot remove the fresh lock that one of them just took.
 */
async function breakStale(lockPath: string, seen: string, staleMs: number): Promise<boolean> {
  const breaker = `${lockPath}.break`;
  const me: Holder = { pid: process.pid, host: hostname(), time: new Date().toISOString(), token: '' };
  if (!tryCreate(breaker, me)) {
    const other = readHolder(breaker);
    // A breaker holds its lock for a few milliseconds; one left behind by a crash is removed.
    if (other && isStale(other, Math.min(staleMs, 5000))) await unlink(breaker).catch(() => undefined);
    return false;
  }
  try {
    const again = readHolder(lockPath);
    if (again === undefined) return true;
    if (again.raw !== seen) return false;
    const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
    await rename(lockPath, aside);
    await unlink(aside).catch(() => undefined);
    return true;
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

/**
 * Runs `fn` while holding an exclusive lock file (`{pid, host, time}`), waiting with jittered backoff.
 * Not re-entrant: calling withLock on the same path from inside `fn` waits for itself and times out.
 */
export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const holder: Holder = {
    pid: process.pid,
    host: hostname(),
    time: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  if (!statSync(dirname(lockPath), { throwIfNoEntry: false })?.isDirectory())
    await mkdir(dirname(lockPath), { recursive: true });

  const started = Date.now();
  const want = `${lockPath}.want`;
  let wanting = false;
  for (let attempt = 0; ; attempt++) {
    holder.time = new Date().toISOString();
    // A writer that has waited long claims the next turn; others step aside while its claim is fresh.
    if (!wanting && otherWants(want, holder.token)) {
      if (Date.now() >= deadline) throw lockedError(lockPath, readHolder(lockPath), timeoutMs);
      await sleep(WANT_POLL_MS * (0.5 + Math.random()));
      continue;
    }
    if (tryCreate(lockPath, holder)) break;
    if (Date.now() - started >= WANT_AFTER_MS) wanting = await claimTurn(want, holder);
    const found = readHolder(lockPath);
    if (found === undefined) continue;
    if (isStale(found, staleMs) && (await breakStale(lockPath, found.raw, staleMs))) continue;
    if (Date.now() >= deadline) {
      if (wanting) await unlinkIfOurs(want, holder.token);
      throw lockedError(lockPath, found, timeoutMs);
    }
    // Locks are held for one small write, so short waits find them free soonest.
    const backoff = Math.min(5 * 2 ** Math.min(attempt, 3), 40);
    await sleep(backoff * (0.5 + Math.random()));
  }

  if (wanting) await unlinkIfOurs(want, holder.token);

  // Heartbeat: a holder that is alive renews its time, so a long write (a big ingest, a slow disk)
  // is never taken for a crashed one and broken under it after staleMs.
  const heartbeat = setInterval(
    () => {
      void renew(lockPath, holder).catch(() => undefined);
    },
    Math.max(10, Math.floor(staleMs / 3)),
  );
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    // Read and removed synchronously, as it was taken: a few bytes in `.mem/`.
    const current = readHolderQuietly(lockPath);
    if (current?.holder?.token === holder.token) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Gone already: nothing of ours to remove.
      }
    }
  }
}

function lockedError(lockPath: string, found: { holder?: Holder } | undefined, timeoutMs: number): MemError {
  const who = found?.holder
    ? `pid ${found.holder.pid} on ${found.holder.host} since ${found.holder.time}`
    : 'another process';
  return new MemError('LOCKED', `${lockPath} is held by ${who}; gave up after ${timeoutMs} ms`);
}

/**
 * Past this much waiting, a writer claims the next turn. Without it the lock is not fair: a
 * process writing in a loop takes it again within a millisecond of releasing it, while the
 * others poll every few tens of ms, and one of four writers waited past the 10 s timeout.
 */
const WANT_AFTER_MS = 500;
/** How often a writer that stepped aside looks again; a claim not renewed for WANT_STALE_MS lapses. */
const WANT_POLL_MS = 10;
const WANT_STALE_MS = 1000;

/** Claims (or renews the claim to) the next turn; false when another waiter holds the claim. */
async function claimTurn(want: string, holder: Holder): Promise<boolean> {
  const found = readHolderQuietly(want);
  if (found?.holder?.token === holder.token || found === undefined || isStale(found, WANT_STALE_MS)) {
    if (found !== undefined && found.holder?.token !== holder.token)
      await unlink(want).catch(() => undefined);
    const claim = { ...holder, time: new Date().toISOString() };
    if (found?.holder?.token === holder.token) {
      await writeFile(want, JSON.stringify(claim)).catch(() => undefined);
      return true;
    }
    try {
      return tryCreate(want, claim);
    } catch {
      return false;
    }
  }
  return false;
}

/** Whether another waiter holds a fresh claim to the next turn. */
function otherWants(want: string, token: string): boolean {
  const found = readHolderQuietly(want);
  return found !== undefined && found.holder?.token !== token && !isStale(found, WANT_STALE_MS);
}

async function unlinkIfOurs(path: string, token: string): Promise<void> {
  const found = readHolderQuietly(path);
  if (found?.holder?.token === token) await unlink(path).catch(() => undefined);
}

/** Rewrites the lock with a fresh time, while it is still ours. */
async function renew(lockPath: string, holder: Holder): Promise<void> {
  const current = readHolder(lockPath);
  if (current?.holder?.token !== holder.token) return;
  holder.time = new Date().toISOString();
  await writeFile(lockPath, JSON.stringify(holder));
}
