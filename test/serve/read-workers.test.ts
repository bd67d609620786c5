import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gitInit } from '../helpers/git.js';
import { cleanupVaults, copyExampleVault } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';

// `mem serve --workers`: the built server as a process, its worker threads opening the vault from
// the cache, real HTTP on 127.0.0.1. A worker's answer must be the server's own answer.
const NOW = '2026-11-30T10:00:00+08:00';
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await cleanupVaults();
});

interface Health {
  notes: number;
  readers?: { workers: number; ready: number; answered: { workers: number; here: number } };
}

async function call(url: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** The two servers read two copies of one vault: a note's file time is all that may differ. */
const sameFiles = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, field) => (key === 'mtimeMs' ? 'file time' : field)));

const health = async (url: string) => (await call(url, '/health')).json as Health;
/** How many reads the server's workers have answered (`/health` itself is never a worker's). */
const readsByWorker = async (url: string) => (await health(url)).readers?.answered.workers ?? 0;

async function serve(workers: number): Promise<{ root: string; url: string }> {
  const root = await copyExampleVault();
  await gitInit(root);
  const { child, url } = await startServe(root, ['--vault', root, '--workers', String(workers)]);
  children.push(child);
  if (workers > 0)
    await vi.waitFor(async () => expect((await health(url)).readers?.ready).toBe(workers), WAIT);
  return { root, url };
}

/** Every read the workers may answer, with `now` fixed so two servers must agree byte for byte. */
const READS: Array<[string, unknown?]> = [
  ['/recall', { query: '上海', now: NOW }],
  ['/recall', { query: 'where does Rain live', k: 3, now: NOW, fresh: true }],
  ['/recall', { query: '上周', now: NOW }],
  ['/compile', { message: 'where am I moving?', budget: 800, now: NOW }],
  ['/memory/search', { query: 'tea', limit: 4, now: NOW }],
  ['/notes/profile/user.md'],
  ['/backlinks/profile/user.md'],
  ['/notes/nowhere.md'],
  ['/recall', { query: 42 }],
];

describe('mem serve --workers', () => {
  it('answers every read as the server without workers does, and its workers answer some', async () => {
    const [plain, pooled] = await Promise.all([serve(0), serve(1)]);
    expect((await health(plain.url)).readers).toBeUndefined();
    for (let round = 0; round < 3; round++) {
      // Three clients at once: reads go to the worker while the server's own thread is busy.
      const answers = await Promise.all(
        READS.flatMap(([path, body]) => [0, 1, 2].map(() => call(pooled.url, path, body))),
      );
      for (const [i, [path, body]] of READS.entries()) {
        const expected = sameFiles(await call(plain.url, path, body));
        for (const answer of answers.slice(i * 3, i * 3 + 3)) expect(sameFiles(answer)).toEqual(expected);
      }
    }
    const { readers } = await health(pooled.url);
    expect(readers?.workers).toBe(1);
    expect(readers?.answered.workers).toBeGreaterThan(0);
    expect((readers?.answered.workers ?? 0) + (readers?.answered.here ?? 0)).toBe(READS.length * 9);
  });

  it('finds what was just added, and a note written by hand with a fresh read, from a worker', async () => {
    const { root, url } = await serve(1);
    const byWorker = () => readsByWorker(url);
    /**
     * The read's answer once a worker gave it. A read that finds the server's index busy (an add's
     * commit still running, which under load outlasts the next request) is answered by the server
     * itself, so it is asked again until the worker answers: what is tested is the worker's answer.
     */
    const askWorker = (path: string, body: unknown) =>
      vi.waitFor(async () => {
        const before = await byWorker();
        const answer = await call(url, path, body);
        expect((await byWorker()) - before).toBe(1);
        return answer;
      }, WAIT);
    for (let i = 0; i < 12; i++) {
      const added = await call(url, '/memory/add', { user_text: `I named the kite zephyrkite${i}.` });
      expect(added.status).toBe(200);
      const found = await askWorker('/memory/search', { query: `zephyrkite${i}`, limit: 1 });
      expect((found.json as { results: { memory: string }[] }).results.map((r) => r.memory)).toEqual([
        `I named the kite zephyrkite${i}.`,
      ]);
    }
    await writeFile(join(root, 'insights', 'kites.md'), '# Kites\n\nThe red kite is called Quillfeather.\n');
    const fresh = await askWorker('/recall', { query: 'Quillfeather', fresh: true });
    expect((fresh.json as { hits: { path: string }[] }).hits.map((hit) => hit.path)).toEqual([
      'insights/kites.md',
    ]);
  });

  it('refuses --workers with --vaults, and a count that is not a number', async () => {
    const root = await copyExampleVault();
    await expect(startServe(root, ['--vaults', root, '--workers', '1'])).rejects.toThrow(
      /--workers serves one vault; it cannot be combined with --vaults/,
    );
    await expect(startServe(root, ['--vault', root, '--workers', 'many'])).rejects.toThrow(/--workers/);
  });
});
