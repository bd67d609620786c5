// A moment given without an offset (`--now 2026-11-30T23:30`, `"now": "…"` over HTTP, a string to
// the library) is a clock reading in the vault's time zone, wherever the caller or the process runs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError, openVault } from '../../src/index.js';
import { serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

// The vault keeps Shanghai time (UTC+8). 23:30 there on 30 November is 15:30 UTC; read in UTC (or
// in Los Angeles) it would be the morning of 1 December in Shanghai, and "yesterday" would move.
const FILES = {
  'episodes/daily/2026-11-29.md': '# 2026-11-29\n\n- 20:00 **Rain:** Climbing at the gym ^e1\n',
  'episodes/daily/2026-11-30.md': '# 2026-11-30\n\n- 20:00 **Rain:** Dumplings with Ben ^e1\n',
};
const SHANGHAI_EVENING = '2026-11-30T23:30';

describe('a moment without an offset is read in the vault time zone', () => {
  it('by the library, for recall, compile and remember', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    expect(vault.recall('昨天', { now: SHANGHAI_EVENING }).range).toMatchObject({
      from: '2026-11-29',
      to: '2026-11-29',
    });
    // With an offset it is that instant: 23:30 UTC is 07:30 on 1 December in Shanghai.
    expect(vault.recall('昨天', { now: `${SHANGHAI_EVENING}Z` }).range).toMatchObject({
      from: '2026-11-30',
      to: '2026-11-30',
    });
    expect(vault.compile({ message: 'what did I do yesterday?', now: SHANGHAI_EVENING }).markdown).toContain(
      'Climbing at the gym',
    );
    await vault.remember({ text: 'Late tea', speaker: 'Rain', at: SHANGHAI_EVENING });
    expect(await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8')).toMatch(
      /- 23:30 \*\*Rain:\*\* Late tea \^e2/,
    );
    expect(() => vault.recall('tea', { now: 'next tuesday-ish' })).toThrow(MemError);
    expect(() => vault.recall('tea', { now: 'next tuesday-ish' })).toThrow(/now must be an ISO 8601/);
    await vault.close();
  });

  it('by the command line, whatever TZ the process has', async () => {
    const root = await makeVault(FILES);
    for (const TZ of ['UTC', 'America/Los_Angeles']) {
      const run = await memProcess(
        ['--vault', root, '--no-server', 'recall', '昨天', '--now', SHANGHAI_EVENING, '--json'],
        { env: { TZ } },
      );
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout).range).toMatchObject({ from: '2026-11-29', to: '2026-11-29' });
    }
    const bad = await memProcess(['--vault', root, 'recall', 'tea', '--now', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"now" must be an ISO 8601 date or time');
  });

  it('over HTTP', async () => {
    const root = await makeVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    const server = await serveHttp({ source: singleVault(vault), port: 0 });
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const recall = await post('/recall', { query: '昨天', now: SHANGHAI_EVENING });
      expect(recall.status).toBe(200);
      expect(((await recall.json()) as { range: unknown }).range).toMatchObject({
        from: '2026-11-29',
        to: '2026-11-29',
      });
      const bad = await post('/recall', { query: 'tea', now: 'soon' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toContain(
        '"now" must be an ISO 8601 date or time',
      );
    } finally {
      await server.close();
      await vault.close();
    }
  });
});
