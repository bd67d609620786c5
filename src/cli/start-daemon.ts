// Starting a vault's background daemon (serve/daemon.ts) from a command, without the library: a
// detached `mem daemon run` in its own process group, with no stdio of ours, that outlives the
// command. One per vault: starters take `.mem/daemon-start.lock` in turn, and the one that comes
// second finds the first one's daemon in its record.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ensureCacheDir } from '../core/cache-dir.js';
import type { MemError } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import { readServeRecord, type ServeRecord } from '../core/serve-record.js';
import { VERSION } from '../core/version.js';

/**
 * The longest a command waits for a daemon to open the vault and listen. It opens from the cache,
 * as the command itself would (about 1 s of CPU at 10,000 notes, 17 s at 100,000), so waiting for
 * it costs no more than opening the vault here; a daemon that exits is not waited for at all, and
 * one still not ready after this is taken to be stuck: it is told to go and the command opens the
 * vault itself.
 */
export const DAEMON_START_MS = 120_000;

/**
 * How often a starter looks for the daemon's record while it opens: soon at first (a small vault
 * opens in a few hundred ms), then less often; at 20 ms throughout, the looking cost 1.8 s of CPU
 * while a 100,000-note vault opened.
 */
const POLL_MS = { first: 10, max: 250 };

/**
 * glibc's mmap threshold for a long-running process, in bytes: its default (128 KiB) fixed, where
 * glibc would raise it to the size of each large buffer freed (up to 32 MiB). Raised, it puts the
 * buffers an open and its queries make and drop on the heap, which gives back only its top. At
 * 100,000 notes, `mem serve` with it fixed held 135-137 MiB after the open (141-145 without) and
 * 247-254 MiB after 350 new queries (263-275), with CPU per request within noise (6 alternating pairs,
 * median ratio 1.04). Other C libraries ignore the variable.
 */
export const LONG_RUNNING_MMAP_THRESHOLD = '131072';

/**
 * The environment of a long-running mem process started from `env`: with glibc's mmap threshold
 * fixed, unless the user set a threshold already (either way glibc reads it).
 */
export function longRunningEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (
    env['MALLOC_MMAP_THRESHOLD_'] !== undefined ||
    /glibc\.malloc\.mmap_threshold/.test(env['GLIBC_TUNABLES'] ?? '')
  )
    return env;
  return { ...env, MALLOC_MMAP_THRESHOLD_: LONG_RUNNING_MMAP_THRESHOLD };
}

/** The CLI's own entry, beside this module in dist/cli/ (absent when the sources run in-process). */
const CLI_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/**
 * The vault's daemon, started now unless one of this version already runs; undefined when it
 * could not be started or did not get ready in time.
 */
export async function startDaemon(
  root: string,
  env: NodeJS.ProcessEnv,
  waitMs = DAEMON_START_MS,
): Promise<ServeRecord | undefined> {
  if (!existsSync(CLI_MAIN)) return undefined;
  const lock = join(await ensureCacheDir(root), 'daemon-start.lock');
  const deadline = Date.now() + waitMs;
  // The lock is tried, not waited for: while another command starts the daemon (which may take
  // seconds), this one looks for the daemon's record, as rarely as the starter does.
  for (let wait = POLL_MS.first; Date.now() < deadline; wait = Math.min(wait * 1.5, POLL_MS.max)) {
    try {
      return await withLock(
        lock,
        async () => {
          // Started by the command that held the lock before us.
          const running = await readServeRecord(root, 'daemon');
          if (running?.version === VERSION) return running;
          return await spawnDaemon(root, env, deadline - Date.now());
        },
        { timeoutMs: 0 },
      );
    } catch (error) {
      if ((error as MemError).code !== 'LOCKED') return undefined;
    }
    await sleep(wait);
    const running = await readServeRecord(root, 'daemon');
    if (running?.version === VERSION) return running;
  }
  return undefined;
}

async function spawnDaemon(
  root: string,
  env: NodeJS.ProcessEnv,
  waitMs: number,
): Promise<ServeRecord | undefined> {
  const child = spawn(process.execPath, [CLI_MAIN, '--vault', root, 'daemon', 'run'], {
    cwd: root,
    env: longRunningEnv(env),
    // Its own process group, no terminal and no pipes of ours: it outlives this command, and a
    // Ctrl-C meant for the command does not reach it.
    detached: true,
    stdio: 'ignore',
  });
  let gone = false;
  child.once('exit', () => {
    gone = true;
  });
  child.once('error', () => {
    gone = true;
  });
  child.unref();
  const deadline = Date.now() + waitMs;
  for (let wait = POLL_MS.first; !gone && Date.now() < deadline; wait = Math.min(wait * 1.5, POLL_MS.max)) {
    const record = await readServeRecord(root, 'daemon');
    if (record?.pid === child.pid) return record;
    await sleep(wait);
  }
  // Not ready in time: it is told to go, so that it does not answer later from a start it lost.
  if (!gone) child.kill('SIGTERM');
  return undefined;
}
