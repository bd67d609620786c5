// This clone's device tag: a short random name (`k7q2`) that every block id mem gives out here
// carries (`^e12-k7q2`), so two devices that write the same day while apart never give out the
// same id and a sync never has to move one (issue 32: an id handed out, in `/memory/add`'s links,
// an MCP answer or a stored citation, names the same entry for good). Only a vault that can have
// other devices gets one: its repository has a remote (a clone always has one). A vault without one
// keeps plain `^eN`, and a vault that got a tag keeps it (the record below) even if the remote goes.
//
// Kept in `.mem/device.json`, which git never carries, with the folder and the machine it was made
// for: a copy of the vault's folder (with its `.mem/`) to another folder or machine is another
// device and makes a tag of its own, never reusing this one. Losing the record costs nothing but a
// new tag: ids are unique by tag and number together, and the number goes on from the day's.
import { randomInt } from 'node:crypto';
import { realpath, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { cacheDir, ensureCacheDir } from '../core/cache-dir.js';
import { readRegularText } from '../core/regular-file.js';
import { git } from '../git/run-git.js';
import { tempPathFor } from '../vault/temp-name.js';
import { DEVICE_TAG } from './episode-entry.js';

const FILE = 'device.json';

interface DeviceRecord {
  tag: string;
  /** The vault's folder (real path) and the machine the tag was made for */
  root: string;
  host: string;
}

/** Tags made or read by this process, per vault folder: a tag never changes under a process. */
const known = new Map<string, string>();
/** Vaults found without a remote, and until when that answer is trusted (ms since the epoch). */
const untagged = new Map<string, number>();
/** How long "no remote" is trusted: a remote added meanwhile tags the ids written after it. */
const UNTAGGED_MS = 5_000;

/** Four base-36 characters, lower case, from a strong random source: 1.7 million tags. */
function newTag(): string {
  let tag = '';
  for (let i = 0; i < 4; i++) tag += randomInt(36).toString(36);
  return tag;
}

async function readRecord(root: string): Promise<DeviceRecord | undefined> {
  try {
    const data = JSON.parse(await readRegularText(join(cacheDir(root), FILE))) as Partial<DeviceRecord>;
    return typeof data.tag === 'string' &&
      DEVICE_TAG.test(data.tag) &&
      typeof data.root === 'string' &&
      typeof data.host === 'string'
      ? (data as DeviceRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the vault's repository has a remote: other clones may write its days. */
async function hasAnyRemote(root: string): Promise<boolean> {
  const out = await git(root, ['remote'], { allowFail: true });
  return (out ?? '').trim() !== '';
}

/**
 * The tag this clone's new block ids carry, or undefined: plain `eN` ids (a vault with no remote
 * that never had a tag). Called under the vault's write lock, before ids are given out.
 */
export async function deviceTag(root: string): Promise<string | undefined> {
  const cached = known.get(root);
  if (cached) return cached;
  if ((untagged.get(root) ?? 0) > Date.now()) return undefined;
  const where = await realpath(root).catch(() => root);
  const host = hostname();
  const record = await readRecord(root);
  if (record && record.root === where && record.host === host) {
    known.set(root, record.tag);
    return record.tag;
  }
  // A record made for another folder or machine is a copy's: that device's tag stays its own.
  if (!record && !(await hasAnyRemote(root))) {
    untagged.set(root, Date.now() + UNTAGGED_MS);
    return undefined;
  }
  const tag = newTag();
  const next: DeviceRecord = { tag, root: where, host };
  // Kept for this process even when `.mem/` cannot be written: unique all the same.
  await ensureCacheDir(root)
    .then(async (dir) => {
      const file = join(dir, FILE);
      const temp = tempPathFor(file);
      await writeFile(temp, `${JSON.stringify(next)}\n`);
      await rename(temp, file);
    })
    .catch(() => undefined);
  untagged.delete(root);
  known.set(root, tag);
  return tag;
}
