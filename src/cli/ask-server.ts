import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { readDaemonSettings } from '../core/config/daemon-settings.js';
import { countNotes } from '../core/count-notes.js';
import { findVault } from '../core/find-vault.js';
import { readServeRecord, type ServeRecord } from '../core/serve-record.js';
import { CONFIG_FILE } from '../core/vault-files.js';
import { VERSION } from '../core/version.js';
import type { GlobalOptions } from './context.js';
import type { CliIO } from './io.js';

/** Longer than any read takes on a warm server; past it the command opens the vault itself. */
const ASK_TIMEOUT_MS = 5000;

/**
 * A daemon's fresh read walks every note first: about 1 s of CPU at 100,000 notes, several times
 * that in wall time on a loaded machine, and opening the vault here instead would cost 20 s.
 */
const DAEMON_ASK_TIMEOUT_MS = 30_000;

/** A refusal that says the record is stale: nothing listens there, or not the process it names. */
class Stale extends Error {}

/** A JSON request to a loopback server of ours; rejects on any status but 200. */
export async function httpJson(
  url: string,
  body: unknown,
  token: string | undefined,
  timeoutMs = ASK_TIMEOUT_MS,
  method: 'GET' | 'POST' = 'POST',
): Promise<unknown> {
  // Loaded only when there is a server to ask: a command that opens the vault itself never pays for it.
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const data = Buffer.from(body === undefined ? '' : JSON.stringify(body));
    const req = request(
      url,
      {
        method,
        timeout: timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': data.length,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          // 401: the port is someone else's now (a daemon that died and a process that took its port);
          // 410: a daemon that stops (the vault's config changed since it opened the vault).
          if (response.statusCode === 401 || response.statusCode === 410)
            return reject(new Stale(`HTTP ${response.statusCode}`));
          if (response.statusCode !== 200) return reject(new Error(`HTTP ${response.statusCode}`));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      // After a reboot a record's pid may name another process: nothing listens on its port.
      reject(error.code === 'ECONNREFUSED' ? new Stale(error.message) : error),
    );
    req.end(data);
  });
}

/**
 * A read answered by a process that already holds this vault's index, or undefined: no such
 * process, `--no-server`, or any failure on the way (the command then opens the vault itself, so
 * asking never makes an answer worse, only cheaper). First a `mem serve` for the vault; else the
 * vault's background daemon, started now when the vault is big enough (see askDaemon). Either
 * re-reads notes changed on disk before it answers (`fresh`), so the answer is never older than a
 * new process's. Loaded by the read commands without the library: `node:http` and a few small
 * file reads are the whole cost.
 */
export async function askServer<T extends object>(
  command: Command,
  io: CliIO,
  route: '/recall' | '/compile',
  body: Record<string, unknown>,
): Promise<T | undefined> {
  const globals = command.optsWithGlobals() as GlobalOptions & { server?: boolean };
  if (globals.server === false) return undefined;
  let root: string;
  try {
    root = await findVault(globals.vault, io.cwd, io.env);
  } catch {
    // The local path reports a missing vault in its own words.
    return undefined;
  }
  // Only a vault's own server is asked: the folder of `mem serve --vaults` holds a claim too, and
  // its server answers for the users' vaults inside it, not for the folder.
  if (
    !(await stat(join(root, CONFIG_FILE)).then(
      (info) => info.isFile(),
      () => false,
    ))
  )
    return undefined;
  const question = { ...body, fresh: true };
  const record = await readServeRecord(root);
  if (record?.version === VERSION) {
    const answer = await ask<T>(record, route, question, io.env['MEM_TOKEN']);
    if (answer !== 'stale') {
      if (answer !== undefined) trace(io, `mem serve (pid ${record.pid})`);
      return answer;
    }
  }
  return askDaemon<T>(root, io, route, question);
}

/** `MEM_TRACE=1`: one line on stderr saying which process answered. */
function trace(io: CliIO, who: string): void {
  if (isOn(io.env['MEM_TRACE'])) io.stderr(`mem: answered by ${who}\n`);
}

const isOn = (value: string | undefined) => value !== undefined && value !== '' && value !== '0';

/** The answer, `'stale'` when the record names no server of ours, undefined on any other failure. */
async function ask<T>(
  record: ServeRecord,
  route: string,
  question: Record<string, unknown>,
  token: string | undefined,
  timeoutMs = ASK_TIMEOUT_MS,
): Promise<T | 'stale' | undefined> {
  try {
    const answer = (await httpJson(`${record.url}${route}`, question, token, timeoutMs)) as T & {
      partial?: boolean;
    };
    // A partial answer (the server was still re-indexing) is not what a new process would say.
    return answer.partial ? undefined : answer;
  } catch (error) {
    return error instanceof Stale ? 'stale' : undefined;
  }
}

/**
 * Asks the vault's daemon, starting it first when none of this version runs: never with
 * `MEM_NO_DAEMON=1` or `daemon.enabled: false`, and only for a vault of at least `daemon.minNotes`
 * notes (below that opening the vault costs about what asking does, and nothing is left running).
 * A daemon of another version is asked to stop, and replaced.
 */
async function askDaemon<T>(
  root: string,
  io: CliIO,
  route: string,
  question: Record<string, unknown>,
): Promise<T | undefined> {
  if (isOn(io.env['MEM_NO_DAEMON'])) return undefined;
  const settings = await readDaemonSettings(root);
  if (!settings?.enabled) return undefined;
  let record = await readServeRecord(root, 'daemon');
  if (record && record.version !== VERSION) {
    await stopDaemon(record);
    record = undefined;
  }
  if (record) {
    const answer = await ask<T>(record, route, question, record.token, DAEMON_ASK_TIMEOUT_MS);
    if (answer !== 'stale') {
      if (answer !== undefined) trace(io, `the daemon (pid ${record.pid})`);
      return answer;
    }
  }
  if (countNotes(root, settings.minNotes) < settings.minNotes) return undefined;
  // Loaded only when a daemon is to be started.
  const { startDaemon } = await import('./start-daemon.js');
  const started = await startDaemon(root, io.env);
  if (!started) return undefined;
  const answer = await ask<T>(started, route, question, started.token, DAEMON_ASK_TIMEOUT_MS);
  if (answer === 'stale' || answer === undefined) return undefined;
  trace(io, `the daemon (pid ${started.pid}, started now)`);
  return answer;
}

/** Asks a daemon to stop; true when it said it would. A daemon that does not answer is left to its idle exit. */
export async function stopDaemon(record: ServeRecord): Promise<boolean> {
  try {
    await httpJson(`${record.url}/daemon/stop`, {}, record.token, 2000);
    return true;
  } catch {
    return false;
  }
}
