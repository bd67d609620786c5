import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { dayEntries, listDays, turnContext } from '../../src/serve/page-routes.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// The JSON routes the web page reads (GET /days, /days/<date>, /turn, /markdown/), in process.

let root: string;
let vault: Vault;
let server: HttpServer;

const get = async (path: string) => {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  root = await makeVault({
    'persona/identity.md': '# Mira\nA companion.\n',
    'profile/user.md': '# Rain\nLoves ramen.\n',
    'episodes/daily/2026-11-10.md':
      '# 2026-11-10\n\n- 21:00 **Rain:** late ^e1\n- 09:00 **Mira:** early ^e2\n- (event) no time ^e3\n',
    // A second note of the same day (written by hand) joins it.
    'episodes/daily/2026-11-10-trip.md':
      '---\ndate: 2026-11-10\n---\n# Trip\n\n- 12:00 **Rain:** on the train ^e1\n',
    'episodes/daily/2026-11-12.md': '# 2026-11-12\n\n- 08:00 **Rain:** ramen for breakfast ^e1\n',
    // A rollup stands for many days: it is no day of the timeline.
    'episodes/weekly/2026-W46.md':
      '---\ntype: rollup\nperiod: 2026-W46\n---\n# Week 46\n\n- 2026-11-10 moved ^r1\n',
  });
  vault = await openVault({ path: root });
  server = await serveHttp({ source: singleVault(vault), port: 0 });
});

afterAll(async () => {
  await server?.close();
  await cleanupVaults();
});

describe("the web page's routes", () => {
  it('lists the days newest first, joining the notes of one day and leaving rollups out', async () => {
    const { status, body } = await get('/days');
    expect(status).toBe(200);
    expect(body['days']).toEqual([
      {
        date: '2026-11-12',
        paths: ['episodes/daily/2026-11-12.md'],
        entries: 1,
        first: '08:00',
        last: '08:00',
        speakers: ['Rain'],
      },
      {
        date: '2026-11-10',
        paths: ['episodes/daily/2026-11-10-trip.md', 'episodes/daily/2026-11-10.md'],
        entries: 4,
        first: '09:00',
        last: '21:00',
        speakers: ['Rain', 'Mira'],
      },
    ]);
    expect(listDays(vault)).toEqual(body['days']);
  });

  it("gives a day's entries in time order, untimed ones last; refuses a day that is not YYYY-MM-DD", async () => {
    const { body } = await get('/days/2026-11-10');
    const entries = body['entries'] as { id: string; time?: string }[];
    expect(entries.map((e) => [e.time ?? null, e.id])).toEqual([
      ['09:00', 'episodes/daily/2026-11-10.md#^e2'],
      ['12:00', 'episodes/daily/2026-11-10-trip.md#^e1'],
      ['21:00', 'episodes/daily/2026-11-10.md#^e1'],
      [null, 'episodes/daily/2026-11-10.md#^e3'],
    ]);
    expect((await get('/days/2026-11-09')).body['entries']).toEqual([]);
    for (const bad of ['2026-11-31', 'yesterday', '', '2026-11-10x'])
      expect((await get(`/days/${bad}`)).status, bad).toBe(400);
  });

  it('orders any day by time, keeping the written order of equal and missing times', async () => {
    const times = fc.option(
      fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 30))
        .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(times, { minLength: 1, maxLength: 12 }), async (written) => {
        const path = 'episodes/daily/2026-12-01.md';
        const lines = written.map((time, i) => `- ${time ? `${time} ` : ''}**Rain:** entry ${i} ^e${i + 1}`);
        await writeFile(join(root, path), `# 2026-12-01\n\n${lines.join('\n')}\n`);
        await vault.refreshPaths([path]);
        const shown = dayEntries(vault, '2026-12-01').map((e) => e.text);
        const expected = written
          .map((time, i) => ({ time: time ?? '99:99', i }))
          .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.i - b.i))
          .map(({ i }) => `entry ${i}`);
        expect(shown).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });

  it("compiles a turn as the model got it: that entry's text, at its time, with the configured budget", async () => {
    const id = 'episodes/daily/2026-11-12.md#^e1';
    const { status, body } = await get(`/turn?entry=${encodeURIComponent(id)}`);
    expect(status).toBe(200);
    expect(body['now']).toBe('2026-11-12T08:00');
    expect(body['compile']).toEqual(
      vault.compile({ message: 'ramen for breakfast', now: '2026-11-12T08:00' }),
    );
    expect((body['compile'] as { budget: number }).budget).toBe(vault.config.compile.budget);
    expect(turnContext(vault, id).entry.speaker).toBe('Rain');
  });

  it('refuses a turn that is no episode entry, and a path out of the vault', async () => {
    const cases: [string, number][] = [
      ['', 400],
      ['episodes/daily/2026-11-12.md', 400],
      ['#^e1', 400],
      ['episodes/daily/2026-11-12.md#^e9', 404],
      ['profile/user.md#', 404],
      ['episodes/weekly/2026-W46.md#^r1', 404],
      ['../outside.md#^e1', 403],
      ['nowhere.md#^e1', 404],
    ];
    for (const [entry, status] of cases)
      expect((await get(`/turn?entry=${encodeURIComponent(entry)}`)).status, entry).toBe(status);
    expect((await get('/turn')).status).toBe(400);
  });

  it("gives an indexed note's Markdown as written, and nothing else", async () => {
    const { status, body } = await get('/markdown/profile/user.md');
    expect(status).toBe(200);
    expect(body).toEqual({ path: 'profile/user.md', title: 'Rain', markdown: '# Rain\nLoves ramen.\n' });
    for (const [path, expected] of [
      ['mem.config.json', 404],
      ['..%2Fetc%2Fpasswd', 403],
      ['%2Fetc%2Fpasswd', 403],
      ['profile/none.md', 404],
    ] as const)
      expect((await get(`/markdown/${path}`)).status, path).toBe(expected);
  });
});
