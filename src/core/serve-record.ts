// `.mem/serve.json`: how a command finds the `mem serve` that already holds a vault's index in
// memory. The server writes it when it listens and removes it when it stops; a record left by a
// killed server names a process that is gone and is ignored. Nothing secret is in it: a server
// that wants a token says so, and the command sends MEM_TOKEN.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIR } from './vault-files.js';

export interface ServeRecord {
  /** `http://127.0.0.1:7411` */
  url: string;
  pid: number;
  /** The memvault version serving: a command of another version opens the vault itself. */
  version: string;
}

export const serveRecordPath = (root: string): string => join(root, CACHE_DIR, 'serve.json');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The vault's running server, or undefined: none, a record from a process that is gone, or not ours to read. */
export async function readServeRecord(root: string): Promise<ServeRecord | undefined> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(serveRecordPath(root), 'utf8'));
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
    typeof record.version !== 'string'
  )
    return undefined;
  if (!isAlive(record.pid)) return undefined;
  return { url: record.url, pid: record.pid, version: record.version };
}

/**
 * Written whole or not at all (a temporary file renamed over), and only where `.mem/` already
 * exists: a server on a folder that is not an initialised vault leaves nothing behind.
 */
export async function writeServeRecord(root: string, record: ServeRecord): Promise<boolean> {
  const path = serveRecordPath(root);
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
export async function removeServeRecord(root: string, pid: number): Promise<void> {
  try {
    const data = JSON.parse(await readFile(serveRecordPath(root), 'utf8')) as Partial<ServeRecord>;
    if (data.pid === pid) await rm(serveRecordPath(root), { force: true });
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}
