import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { VaultPool } from '../../src/serve/pool/vault-pool.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

let servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  await cleanupVaults();
});

async function post(server: HttpServer, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function one(files: Record<string, string>): Promise<{ root: string; server: HttpServer }> {
  const root = await makeVault(files);
  const vault = await openVault({ path: root });
  await vault.watch();
  const server = await serveHttp({ source: singleVault(vault), port: 0 });
  servers.push(server);
  return { root, server };
}

async function many(options: { defaultIds?: boolean } = {}): Promise<{ dir: string; server: HttpServer }> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-vaults-'));
  const server = await serveHttp({ source: new VaultPool({ dir, ...options }), port: 0 });
  servers.push(server);
  return { dir, server };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('companion /memory/* contract', () => {
  it('answers a query past 4,000 characters from its start, with a warning that says so', async () => {
    const { server } = await one({ 'profile/user.md': '# User\nHas a cat called Miso.\n' });
    const long = `cat ${'a'.repeat(5000)}`;
    const reply = await post(server, '/memory/search', { query: long });
    expect(reply.status).toBe(200);
    expect(reply.json['warning']).toBe(
      'query is 5004 characters; the limit is 4000; only the first 4000 were searched',
    );
    expect((reply.json['results'] as { memory: string }[]).map((r) => r.memory)).toEqual([
      'Has a cat called Miso.',
    ]);
    expect((await post(server, '/recall', { query: long })).json['warning']).toBe(
      'query is 5004 characters; the limit is 4000; only the first 4000 were searched',
    );
    expect((await post(server, '/memory/search', { query: 'cat' })).json['warning']).toBeUndefined();
  });

  it('answers /memory/search with {results: [{id, memory, score}], count} from recall', async () => {
    const { server } = await one({
      'profile/user.md': '# User\nLoves ramen.\n\n## Pets\nHas a cat called Miso.\n',
    });
    const reply = await post(server, '/memory/search', { query: 'cat', limit: 5 });
    expect(reply.status).toBe(200);
    expect(reply.json['count']).toBe(1);
    const results = reply.json['results'] as { id: string; memory: string; score: number }[];
    expect(results.map((r) => [r.id, r.memory])).toEqual([
      ['profile/user.md#Pets', 'Has a cat called Miso.'],
    ]);
    expect(typeof results[0]?.score).toBe('number');
  });

  it("writes /memory/add to today's episode before answering, so the next search finds it", async () => {
    const { root, server } = await one({});
    const reply = await post(server, '/memory/add', {
      user_text: 'My sister Hana visits on Friday',
      assistant_text: 'I will remember that Hana visits',
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ status: 'written', kept: 2 });
    const search = await post(server, '/memory/search', { query: 'Hana' });
    const results = search.json['results'] as { id: string; memory: string }[];
    expect(results.map((r) => r.memory).sort()).toEqual([
      'I will remember that Hana visits',
      'My sister Hana visits on Friday',
    ]);
    const daily = results[0]?.id.split('#')[0] ?? '';
    const text = await readFile(join(root, daily), 'utf8');
    expect(text).toMatch(/\*\*user:\*\* My sister Hana visits on Friday \^e1\n/);
    expect(text).toMatch(/\*\*assistant:\*\* I will remember that Hana visits \^e2\n/);
  });

  it('refuses /memory/add without user_text', async () => {
    const { server } = await one({});
    expect(await post(server, '/memory/add', { assistant_text: 'hi' })).toEqual({
      status: 400,
      json: { error: '"user_text" is required and must be a string' },
    });
  });

  it('refuses a /memory/search body with a wrong type, a missing field or an unknown field, naming it', async () => {
    const { server } = await one({ 'profile/user.md': '# User\nHas a cat.\n' });
    expect(await post(server, '/memory/search', { query: 42 })).toEqual({
      status: 400,
      json: { error: '"query" must be a string' },
    });
    expect(await post(server, '/memory/search', { query: 'cat', limit: '5' })).toEqual({
      status: 400,
      json: { error: '"limit" must be a positive whole number' },
    });
    expect(await post(server, '/memory/search', { limit: 5 })).toEqual({
      status: 400,
      json: { error: '"query" is required and must be a string' },
    });
    // A typo would otherwise fall back to the default limit without a word.
    expect(await post(server, '/memory/search', { query: 'cat', limt: 1 })).toEqual({
      status: 400,
      json: {
        error: 'unknown field "limt"; expected query, limit, time_range, layers, now, agent_id, user_id',
      },
    });
  });

  it('refuses a /memory/add body with a wrong type or an unknown field, and reads null as not given', async () => {
    const { server } = await one({});
    expect(await post(server, '/memory/add', { user_text: ['hi'] })).toEqual({
      status: 400,
      json: { error: '"user_text" must be a string' },
    });
    expect(await post(server, '/memory/add', { user_text: 'hi', metadata: { mood: 'ok' } })).toEqual({
      status: 400,
      json: {
        error:
          'unknown field "metadata"; expected user_text, assistant_text, commit, interrupted, at, agent_id, user_id, settings',
      },
    });
    expect(await post(server, '/memory/add', { user_text: ' ', assistant_text: null })).toEqual({
      status: 400,
      json: { error: '"user_text" or "assistant_text" must have text' },
    });
    expect(
      await post(server, '/memory/add', {
        user_text: 'I adopted a hedgehog',
        assistant_text: null,
        agent_id: null,
      }),
    ).toMatchObject({ status: 200, json: { status: 'written', kept: 1 } });
    const search = await post(server, '/memory/search', { query: 'hedgehog', user_id: null });
    expect(search.json['count']).toBe(1);
  });

  it('answers /memory/health with the serving mode and the write queue', async () => {
    const { server } = await one({});
    const response = await fetch(`${server.url}/memory/health`);
    expect({ status: response.status, json: await response.json() }).toEqual({
      status: 200,
      json: {
        status: 'ok',
        mode: 'single',
        vaults: 1,
        queued: 0,
        uncommitted: 0,
        reflect: { enabled: false, running: false, newEntries: 0, failures: 0 },
      },
    });
  });

  it('keeps both sides, the user only or nothing, as `commit` says, and marks a cut-off reply', async () => {
    const { root, server } = await one({});
    const at = '2026-11-30T09:00:00+08:00';
    const add = (body: object) => post(server, '/memory/add', { at, ...body });
    expect(
      (await add({ user_text: 'I got the job', assistant_text: 'Congratulations!' })).json,
    ).toMatchObject({ kept: 2 });
    expect(
      (await add({ user_text: 'Mum calls on Sundays', assistant_text: 'Noted', commit: 'user' })).json,
    ).toMatchObject({ kept: 1 });
    expect(
      (await add({ user_text: '', assistant_text: 'Good morning, sunshine!', commit: 'none' })).json,
    ).toEqual({
      status: 'skipped',
      kept: 0,
      links: [],
    });
    await add({ user_text: 'tell me about Kyoto', assistant_text: 'Kyoto has two thou', interrupted: true });
    const lines = (await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- 09:00 **user:** I got the job ^e1',
      '- 09:00 **assistant:** Congratulations! ^e2',
      '- 09:00 **user:** Mum calls on Sundays ^e3',
      '- 09:00 **user:** tell me about Kyoto ^e4',
      '- 09:00 **assistant:** Kyoto has two thou #interrupted ^e5',
    ]);
  });

  it('a search gives each memory its date, time, speaker and layer, leaves persona out unless asked, and takes a time_range', async () => {
    const { server } = await one({
      'persona/identity.md': '# 小满\nI love tea and talking about tea.\n',
      'profile/user.md': '# User\nDrinks green tea every morning.\n',
      'episodes/daily/2026-11-21.md': '# 2026-11-21\n\n- 10:00 **Rain:** we tried a new tea house ^e1\n',
      'episodes/daily/2026-11-25.md': '# 2026-11-25\n\n- 18:30 **Rain:** bought tea for Mum ^e1\n',
    });
    const search = async (body: object) =>
      (await post(server, '/memory/search', { query: 'tea', now: '2026-11-30T10:00:00+08:00', ...body }))
        .json['results'] as Record<string, unknown>[];
    const all = await search({});
    expect(all.map((r) => r['layer']).sort()).toEqual(['episodes', 'episodes', 'profile']);
    expect(all.find((r) => r['id'] === 'episodes/daily/2026-11-25.md#^e1')).toMatchObject({
      memory: 'bought tea for Mum',
      date: '2026-11-25',
      time: '18:30',
      speaker: 'Rain',
      layer: 'episodes',
    });
    expect((await search({ layers: ['persona'] })).map((r) => r['layer'])).toEqual(['persona']);
    // The range filters episodes strictly; the profile is never date-filtered.
    const ranged = await search({ time_range: { from: '2026-11-21', to: '2026-11-23' } });
    expect(ranged.map((r) => r['id']).sort()).toEqual([
      'episodes/daily/2026-11-21.md#^e1',
      'profile/user.md#User',
    ]);
    expect(
      (
        await post(server, '/memory/search', {
          query: 'tea',
          time_range: { from: '2026-11-23', to: '2026-11-21' },
        })
      ).json,
    ).toEqual({
      error: '"time_range.from" is after "time_range.to"',
    });
  });

  describe('with one vault per agent and user', () => {
    it('keeps two users apart', async () => {
      const { dir, server } = await many();
      await post(server, '/memory/add', { agent_id: 'rain', user_id: 'alice', user_text: 'I keep bees' });
      await post(server, '/memory/add', { agent_id: 'rain', user_id: 'bob', user_text: 'I keep goats' });
      const search = async (user: string, query: string) =>
        (
          (await post(server, '/memory/search', { agent_id: 'rain', user_id: user, query })).json[
            'results'
          ] as {
            memory: string;
          }[]
        ).map((r) => r.memory);
      expect(await search('alice', 'bees')).toEqual(['I keep bees']);
      expect(await search('alice', 'goats')).toEqual([]);
      expect(await search('bob', 'goats')).toEqual(['I keep goats']);
      expect(await search('bob', 'bees')).toEqual([]);
      expect(await exists(join(dir, 'rain/alice/mem.config.json'))).toBe(true);
      expect(await exists(join(dir, 'rain/bob/.git'))).toBe(true);
    });

    it('refuses an add or a search that names no user_id or agent_id, unless the host opted into a default', async () => {
      const { dir, server } = await many();
      for (const [path, body] of [
        ['/memory/add', { user_text: 'I keep bees' }],
        ['/memory/search', { query: 'bees' }],
        ['/memory/add', { user_text: 'I keep bees', user_id: null, agent_id: '' }],
        ['/remember', { text: 'I keep bees' }],
        ['/recall', { query: 'bees' }],
        ['/compile', { message: 'bees' }],
      ] as const) {
        const reply = await post(server, path, body);
        expect(reply.status, path).toBe(400);
        expect(reply.json['error'], path).toMatch(
          /^this server keeps one vault per user \(mem serve --vaults\): send user_id \(and agent_id\)/,
        );
      }
      expect(await exists(join(dir, 'default'))).toBe(false);
      // One id is enough: the other is `default`.
      expect((await post(server, '/memory/add', { user_id: 'alice', user_text: 'I keep bees' })).status).toBe(
        200,
      );
      expect(await exists(join(dir, 'default/alice/mem.config.json'))).toBe(true);
      // Health names no vault to write to: it answers without ids.
      expect((await fetch(`${server.url}/memory/health`)).status).toBe(200);

      const shared = await many({ defaultIds: true });
      expect((await post(shared.server, '/memory/add', { user_text: 'I keep goats' })).json).toMatchObject({
        status: 'written',
      });
      expect(await exists(join(shared.dir, 'default/default/mem.config.json'))).toBe(true);
      const found = await post(shared.server, '/memory/search', { query: 'goats' });
      expect((found.json['results'] as { memory: string }[]).map((r) => r.memory)).toEqual(['I keep goats']);
    });

    it('reads a vault that does not exist as empty and creates nothing', async () => {
      const { dir, server } = await many();
      expect(
        await post(server, '/memory/search', { agent_id: 'rain', user_id: 'carol', query: 'x' }),
      ).toEqual({
        status: 200,
        json: { results: [], count: 0 },
      });
      expect(await post(server, '/recall', { user_id: 'carol', query: 'x' })).toEqual({
        status: 200,
        json: { query: 'x', hits: [] },
      });
      expect(await exists(join(dir, 'rain'))).toBe(false);
      expect(await exists(join(dir, 'default'))).toBe(false);
    });

    it('refuses ids that are not plain folder names with 400, and creates nothing', async () => {
      const { dir, server } = await many();
      for (const [key, id] of [
        ['user_id', '..'],
        ['agent_id', '../etc'],
        ['user_id', 'a/b'],
        ['user_id', 'a\\b'],
        ['user_id', 'with space'],
        ['agent_id', '.git'],
        ['user_id', '.hidden'],
        ['user_id', '-rf'],
        ['user_id', 'tab\there'],
        ['user_id', 'NUL'],
        ['user_id', 'com1'],
        ['user_id', 'x'.repeat(65)],
      ] as const) {
        const reply = await post(server, '/memory/add', { [key]: id, user_text: 'x' });
        expect(reply).toEqual({
          status: 400,
          json: {
            error: `${key} must be 1 to 64 letters, digits, "_" or "-", not starting with "-" and not a reserved name, got ${JSON.stringify(id)}`,
            code: 'INVALID_ARGUMENT',
          },
        });
      }
      const response = await fetch(`${server.url}/health?user_id=..`);
      expect(response.status).toBe(400);
      expect(await readdir(dir)).toEqual([]);
    });

    it('takes ids in any script, up to 64 characters, and reports the per-user mode', async () => {
      const { dir, server } = await many();
      for (const id of ['林雨', 'Ölçü_2', 'x'.repeat(64)]) {
        expect(
          (await post(server, '/memory/add', { agent_id: '小满', user_id: id, user_text: 'hello' })).status,
        ).toBe(200);
      }
      expect((await readdir(join(dir, '小满'))).sort()).toEqual(['Ölçü_2', 'x'.repeat(64), '林雨'].sort());
      const health = await (await fetch(`${server.url}/memory/health`)).json();
      expect(health).toMatchObject({ status: 'ok', mode: 'per-user', vaults: 3, queued: 0 });
    });
  });
});
