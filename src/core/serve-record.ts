// `.mem/serve.json` and `.mem/daemon.json`: how a command finds the process that already holds a
// vault's index in memory, a `mem serve` someone started or the background daemon a command
// started (see cli/start-daemon.ts). The process writes its record when it listens and removes it
// when it stops; a record left by a killed process names a process that is gone and is ignored.
// `mem serve` puts no secret in it (a server that wants a token says so, and the command sends
// MEM_TOKEN); the daemon's record holds the token it requires, so the file is the owner's only (0600).
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ensureCacheDir } from './cache-dir.js';
import { withLock } from './lock.js';
import { readRegularText } from './regular-file.js';
import { CACHE_DIR } from './vault-files.js';

export interface ServeRecord {
  /** `http://127.0.0.1:7411` */
  url: string;
  pid: number;
  /** The memvault version serving: a command of another version opens the vault itself. */
  version: string;
  /** The daemon's bearer token (random per start); `mem serve` records none */
  token?: string;
}

/** `serve`: a `mem serve` on one vault; `daemon`: the background process a command started. */
export type ServeKind = 'serve' | 'daemon';

export const serveRecordPath = (root: string, kind: ServeKind = 'serve'): string =>
  join(root, CACHE_DIR, `${kind}.json`);

/** Whether a process with this pid runs (as any user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The vault's running server, or undefined: none, a record from a process that is gone, or not ours to read. */
export async function readServeRecord(
  root: string,
  kind: ServeKind = 'serve',
): Promise<ServeRecord | undefined> {
  let data: unknown;
  try {
    data = JSON.parse(await readRegularText(serveRecordPath(root, kind)));
  } catch {
    return undefined;
  }
  const record = data as Partial<ServeRecord> | null;
  if (
    typeof record?.url !== 'string' ||
    !/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost):\d+$/.test(record.url) ||
    typeof record.pid !== 'number' ||
    !Number.isInteger(record.pid) ||
    record.pid <= 0 ||
    typeof record.version !== 'string' ||
    (record.token !== undefined && typeof record.token !== 'string')
  )
    return undefined;
  if (!isAlive(record.pid)) return undefined;
  return {
    url: record.url,
    pid: record.pid,
    version: record.version,
    ...(record.token ? { token: record.token } : {}),
  };
}

/**
 * Written whole or not at all (a temporary file renamed over), and only where `.mem/` already
 * exists: a server on a folder that is not an initialised vault leaves nothing behind.
 */
export async function writeServeRecord(
  root: string,
  record: ServeRecord,
  kind: ServeKind = 'serve',
): Promise<boolean> {
  const path = serveRecordPath(root, kind);
  const temp = `${path}.${record.pid}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    await rename(temp, path);
    return true;
  } catch {
    await rm(temp, { force: true });
    return false;
  }
}

/** Removes the record if it is still this process's (a newer server may have replaced it). */
export async function removeServeRecord(root: string, pid: number, kind: ServeKind = 'serve'): Promise<void> {
  try {
    const data = JSON.parse(await readRegularText(serveRecordPath(root, kind))) as Partial<ServeRecord>;
    if (data.pid === pid) await rm(serveRecordPath(root, kind), { force: true });
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}

/** Who holds a vault: the pid and URL of the server that claimed it (the URL is empty while it starts). */
export interface ServeClaim {
  pid: number;
  url: string;
  version: string;
}

/**
 * A claim not yet listening (no URL) is that old at most: a server listens once its vault is open
 * and its journal replayed (seconds; 20 s at 100,000 notes). An older one names a reused pid.
 */
const CLAIM_START_MS = 10 * 60_000;

/** Whether anything accepts a TCP connection at `url` (within a second). */
function listening(url: string): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port: Number(target.port) });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The holder of a record whose process still runs, or undefined. A live pid is not enough: after
 * a crash or a reboot the pid may be another process's, so the holder must also listen at its URL
 * (or, not listening yet, have claimed within CLAIM_START_MS).
 */
async function liveClaim(root: string, kind: ServeKind): Promise<ServeClaim | undefined> {
  const path = serveRecordPath(root, kind);
  let data: Partial<ServeRecord> | null;
  let mtimeMs: number;
  try {
    data = JSON.parse(await readRegularText(path)) as Partial<ServeRecord> | null;
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
  const pid = data?.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const url = typeof data?.url === 'string' ? data.url : '';
  if (url === '' ? Math.abs(Date.now() - mtimeMs) > CLAIM_START_MS : !(await listening(url)))
    return undefined;
  return { pid, url, version: typeof data?.version === 'string' ? data.version : '' };
}

/**
 * Makes this process the vault's one server of `kind` before it writes anything: records `record`
 * (its URL may still be empty) unless a live process holds the record, and returns that holder
 * then. Claimants take `.mem/<kind>.claim.lock` in turn, so of two servers started together one
 * claims and the other sees its claim; a record whose process is gone is taken over. Two servers
 * on one vault each replayed and committed the other's adds: 6 of 28 entries were never committed.
 */
export async function claimServeRecord(
  root: string,
  record: ServeRecord,
  kind: ServeKind = 'serve',
  /** A live holder this claim replaces all the same (a daemon of another version, told to stop) */
  replaces: (holder: ServeClaim) => boolean = () => false,
): Promise<ServeClaim | undefined> {
  let dir: string;
  try {
    dir = await ensureCacheDir(root);
  } catch (error) {
    // A vault this user cannot write to: no server on it can write either, so there is nothing
    // to keep apart, and reads are still served.
    if (['EACCES', 'EPERM', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  return withLock(
    join(dir, `${kind}.claim.lock`),
    async () => {
      const holder = await liveClaim(root, kind);
      if (holder && holder.pid !== record.pid && !replaces(holder)) return holder;
      if (!(await writeServeRecord(root, record, kind)))
        throw new Error(`could not write ${serveRecordPath(root, kind)}`);
      return undefined;
    },
    { timeoutMs: 10_000 },
  );
}
