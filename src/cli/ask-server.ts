import type { Command } from 'commander';
import { findVault } from '../core/find-vault.js';
import { readServeRecord } from '../core/serve-record.js';
import { VERSION } from '../core/version.js';
import type { GlobalOptions } from './context.js';
import type { CliIO } from './io.js';

/** Longer than any read takes on a warm server; past it the command opens the vault itself. */
const ASK_TIMEOUT_MS = 5000;

async function post(url: string, body: unknown, token: string | undefined): Promise<unknown> {
  // Loaded only when there is a server to ask: a command that opens the vault itself never pays for it.
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      {
        method: 'POST',
        timeout: ASK_TIMEOUT_MS,
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
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * A read answered by the `mem serve` that already holds this vault's index, or undefined: no such
 * server, another version, `--no-server`, or any failure on the way (the command then opens the
 * vault itself, so asking never makes an answer worse, only cheaper). The server re-reads notes
 * changed on disk before it answers (`fresh`), so the answer is never older than a new process's.
 * Loaded by the read commands without the library: `node:http` and a file read are the whole cost.
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
  const record = await readServeRecord(root);
  if (!record || record.version !== VERSION) return undefined;
  try {
    const answer = (await post(
      `${record.url}${route}`,
      { ...body, fresh: true },
      io.env['MEM_TOKEN'],
    )) as T & {
      partial?: boolean;
    };
    // A partial answer (the server was still re-indexing) is not what a new process would say.
    return answer.partial ? undefined : answer;
  } catch {
    return undefined;
  }
}
