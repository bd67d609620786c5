// The background daemon: one vault's index kept in memory for the command line, on loopback, behind
// a random token. `mem recall` and `mem compile` start it when they find none (cli/start-daemon.ts)
// and ask it; it answers their `fresh` reads after re-reading whatever changed on disk, and exits
// by itself when idle, when its vault folder goes, or when another daemon took its record.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  claimServeRecord,
  readServeRecord,
  removeServeRecord,
  writeServeRecord,
} from '../core/serve-record.js';
import { CONFIG_FILE } from '../core/vault-files.js';
import { VERSION } from '../core/version.js';
import type { Vault } from '../internal.js';
import { serveHttp } from './http.js';
import { singleVault, type VaultSource } from './pool/vault-source.js';
import { HttpError, type Route } from './routes.js';

export interface DaemonOptions {
  vault: Vault;
  /** Exit after this long without a request */
  idleMs: number;
  /** How often the clock, the vault folder and the record are looked at (default: min(1 s, idleMs / 2)) */
  checkMs?: number;
  /** Receives failures no client will see */
  onError?: (error: unknown) => void;
  /** Called once the daemon listens and its record is written, with its URL */
  onReady?: (url: string) => void;
  /**
   * `mem.config.json` as it was before the vault opened (see configStamp): a request that finds it
   * changed is refused with 410 and the daemon stops, so no answer comes from settings the vault
   * no longer has (the command starts a new daemon).
   */
  configStamp: string;
}

/** Size, mtime and inode of `mem.config.json`: any edit or replacement changes it. */
export async function configStamp(root: string): Promise<string> {
  const info = await stat(join(root, CONFIG_FILE)).catch(() => undefined);
  return info ? `${info.size}:${info.mtimeMs}:${info.ino}` : 'none';
}

/** Why a daemon stopped: the last line it says. */
export type DaemonStop =
  | 'idle'
  | 'asked to stop'
  | 'signal'
  | 'vault gone'
  | 'replaced'
  | 'no record'
  | 'config changed'
  | `another daemon serves this vault (pid ${number}${string})`;

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Serves `vault` until a reason to stop comes, then closes it and says which. The record
 * (`.mem/daemon.json`, mode 0600) names its URL, pid, version and token; a daemon that cannot write
 * it stops at once, since no command could find it.
 */
export async function runDaemon(options: DaemonOptions): Promise<DaemonStop> {
  const { vault, idleMs } = options;
  const root = vault.root;
  const checkMs = options.checkMs ?? Math.max(5, Math.min(1000, idleMs / 2));
  const token = randomBytes(24).toString('base64url');
  let stop: (reason: DaemonStop) => void = () => undefined;
  const stopped = new Promise<DaemonStop>((resolve) => {
    stop = resolve;
  });

  let lastUsed = Date.now();
  let active = 0;
  let vaultGone = false;
  const inner = singleVault(vault);
  const source: VaultSource = {
    mode: inner.mode,
    root: inner.root,
    health: () => inner.health(),
    // A vault folder that was removed is not written to again: saving the cache would recreate it.
    close: () => (vaultGone ? Promise.resolve() : inner.close()),
    use: async (ids, create, fn) => {
      active++;
      try {
        if ((await configStamp(root)) !== options.configStamp) {
          // The record goes first, so the command that is told 410 starts a new daemon, not this one.
          await removeServeRecord(root, process.pid, 'daemon');
          setImmediate(() => stop('config changed'));
          throw new HttpError(410, `${CONFIG_FILE} changed since this daemon opened the vault; it stops`);
        }
        return await inner.use(ids, create, fn);
      } finally {
        active--;
        lastUsed = Date.now();
      }
    },
  };
  const stopRoute: Route = {
    method: 'POST',
    path: '/daemon/stop',
    handle: async () => {
      setImmediate(() => stop('asked to stop'));
      return { status: 200, body: { stopping: true, pid: process.pid } };
    },
  };

  // One daemon per vault, claimed before it listens: a second started beside it (by hand, or a
  // starter that lost a race) stops at once, naming the first. `url` stays empty until it listens,
  // so no command asks it before then. A daemon of another version is replaced all the same (the
  // command told it to stop, and it stops when it sees its record taken).
  const holder = await claimServeRecord(
    root,
    { url: '', pid: process.pid, version: VERSION, token },
    'daemon',
    (other) => other.version !== VERSION,
  );
  if (holder) {
    await vault.close();
    return `another daemon serves this vault (pid ${holder.pid}${holder.url ? ` on ${holder.url}` : ', starting'})`;
  }

  const server = await serveHttp({
    source,
    port: 0,
    host: '127.0.0.1',
    token,
    routes: [stopRoute],
    onError: options.onError,
  });
  const onSignal = () => stop('signal');
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      if (!(await exists(join(root, CONFIG_FILE)))) {
        vaultGone = true;
        return stop('vault gone');
      }
      const record = await readServeRecord(root, 'daemon');
      if (record === undefined) return stop('no record');
      if (record.pid !== process.pid) return stop('replaced');
      if (active === 0 && Date.now() - lastUsed >= idleMs) return stop('idle');
    } finally {
      checking = false;
    }
  };
  const written = await writeServeRecord(
    root,
    { url: server.url, pid: process.pid, version: VERSION, token },
    'daemon',
  );
  // After the record names the URL: a check before would read the claim as no record.
  const timer = setInterval(() => void check(), checkMs);
  if (!written) stop('no record');
  else options.onReady?.(server.url);

  const reason = await stopped;
  clearInterval(timer);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
  if (!vaultGone) await removeServeRecord(root, process.pid, 'daemon');
  await server.close();
  return reason;
}
