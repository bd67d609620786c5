// `mem serve` under load on loopback: adds mixed into searches, 50 at a time. No 5xx, no failed
// request, and every add answered is in the vault afterwards. The slow tier sends 2,000 requests.
// Needs `npm run build`.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';

const REQUESTS = process.env['MEM_SLOW'] ? 2000 : 200;
const CONCURRENCY = 50;
const AT = '2026-11-30T09:00:00+08:00';
const DAY = 'episodes/daily/2026-11-30.md';
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await cleanupVaults();
});

describe(`mem serve under ${REQUESTS} requests at concurrency ${CONCURRENCY}`, () => {
  it('answers every one without a 5xx, and keeps every add', async () => {
    const root = await makeVault({
      'profile/user.md': '# Rain\nLives in [[Shanghai]] and likes oolong tea.\n',
      'insights/tea.md': '# Tea\nRain drinks oolong every morning.\n',
    });
    await gitInit(root);
    const { child, url } = await startServe(root);
    children.push(child);

    const statuses = new Map<number, number>();
    const failures: string[] = [];
    const added: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const n = next++;
        // One in four is an add; the searches ask for the add just before, for tea, for a place.
        const add = n % 4 === 0;
        const query = [`walnut${n - 1}`, 'oolong tea', 'where does Rain live'][(n % 4) - 1];
        const body = add
          ? { user_text: `load entry ${n} walnut${n}`, assistant_text: `noted ${n}`, at: AT }
          : { query, limit: 5 };
        try {
          const response = await fetch(`${url}/memory/${add ? 'add' : 'search'}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (add && response.ok) added.push(n);
        } catch (error) {
          failures.push(`${n}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(failures).toEqual([]);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(statuses.get(200)).toBe(REQUESTS);
    expect(added).toHaveLength(REQUESTS / 4);

    // Searchable while the server runs, and in the note (and committed) once it stops.
    const last = added[added.length - 1];
    const found = await fetch(`${url}/memory/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `walnut${last}`, limit: 3 }),
    });
    expect(JSON.stringify(await found.json())).toContain(`walnut${last}`);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const text = await readFile(join(root, DAY), 'utf8');
    const kept = [...text.matchAll(/load entry (\d+) walnut/g)].map((m) => Number(m[1]));
    expect(kept.sort((a, b) => a - b)).toEqual([...added].sort((a, b) => a - b));
    expect(await git(root, 'status', '--porcelain')).toBe('');
  }, 900_000);
});
