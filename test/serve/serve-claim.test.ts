import { spawn } from 'node:child_process';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimServeRecord, serveRecordPath } from '../../src/core/serve-record.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// When a `.mem/serve.json` left in the way keeps a new server out: every combination of its pid
// (alive, or gone), its URL (something listens there, nothing does, none yet) and the age of a
// claim without a URL. A live pid alone is not enough: after a reboot it may be another process's.

let listener: Server;
let open: string;
let closed: string;
let dead: number;

beforeAll(async () => {
  listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  open = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  closed = `http://127.0.0.1:${(gone.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  dead = child.pid ?? 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  await cleanupVaults();
});

describe('claiming a vault for mem serve', () => {
  it('is refused exactly when the record names a live server (12 cases)', async () => {
    const wrong: string[] = [];
    for (const pidKind of ['alive', 'dead'] as const)
      for (const urlKind of ['listening', 'closed', 'none'] as const)
        for (const age of ['fresh', 'old'] as const) {
          const root = await makeVault({});
          await mkdir(join(root, '.mem'));
          const pid = pidKind === 'alive' ? process.ppid : dead;
          const url = { listening: open, closed, none: '' }[urlKind];
          const path = serveRecordPath(root);
          await writeFile(path, JSON.stringify({ url, pid, version: '1' }));
          if (age === 'old') {
            const then = new Date(Date.now() - 60 * 60_000);
            await utimes(path, then, then);
          }
          const holder = await claimServeRecord(root, { url: '', pid: process.pid, version: '1' });
          const live =
            pidKind === 'alive' && (urlKind === 'listening' || (urlKind === 'none' && age === 'fresh'));
          const name = `${pidKind} ${urlKind} ${age}`;
          if (live !== (holder !== undefined)) wrong.push(`${name}: ${holder ? 'refused' : 'claimed'}`);
          if (holder) expect(holder).toEqual({ pid, url, version: '1' });
          const now = JSON.parse(await readFile(path, 'utf8')) as { pid: number };
          expect(now.pid, name).toBe(live ? pid : process.pid);
        }
    expect(wrong).toEqual([]);
  });
});
