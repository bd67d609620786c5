import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault, VaultPool } from '../../src/serve/vault-pool.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

let servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  await cleanupVaults();
});

async function post(server: HttpServer, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
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

async function many(): Promise<{ dir: string; server: HttpServer }> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-vaults-'));
  const server = await serveHttp({ source: new VaultPool({ dir }), port: 0 });
  servers.push(server);
  return { dir, server };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('companion /memory/* contract', () => {
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

  it("queues /memory/add at once and appends both turns to today's episode in the background", async () => {
    const { root, server } = await one({});
    const reply = await post(server, '/memory/add', {
      user_text: 'My sister Hana visits on Friday',
      assistant_text: 'I will remember that Hana visits',
    });
    expect(reply).toEqual({ status: 200, json: { status: 'queued' } });
    await server.settled();
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
      json: { error: 'unknown field "limt"; expected query, limit, agent_id, user_id' },
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
      json: { error: 'unknown field "metadata"; expected user_text, assistant_text, agent_id, user_id' },
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
    ).toEqual({ status: 200, json: { status: 'queued' } });
    await server.settled();
    const search = await post(server, '/memory/search', { query: 'hedgehog', user_id: null });
    expect(search.json['count']).toBe(1);
  });

  it('answers /memory/health', async () => {
    const { server } = await one({});
    const response = await fetch(`${server.url}/memory/health`);
    expect({ status: response.status, json: await response.json() }).toEqual({
      status: 200,
      json: { status: 'ok' },
    });
  });

  describe('with one vault per agent and user', () => {
    it('keeps two users apart', async () => {
      const { dir, server } = await many();
      await post(server, '/memory/add', { agent_id: 'rain', user_id: 'alice', user_text: 'I keep bees' });
      await post(server, '/memory/add', { agent_id: 'rain', user_id: 'bob', user_text: 'I keep goats' });
      await server.settled();
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

    it('refuses ids that are not plain folder names with 400', async () => {
      const { server } = await many();
      for (const [key, id] of [
        ['user_id', '..'],
        ['agent_id', '../etc'],
        ['user_id', 'a/b'],
        ['user_id', 'with space'],
      ] as const) {
        const reply = await post(server, '/memory/add', { [key]: id, user_text: 'x' });
        expect(reply).toEqual({
          status: 400,
          json: {
            error: `${key} must be letters, digits, ".", "_" or "-" (not "." or ".."), got ${JSON.stringify(id)}`,
            code: 'INVALID_INPUT',
          },
        });
      }
      const response = await fetch(`${server.url}/health?user_id=..`);
      expect(response.status).toBe(400);
    });
  });
});
