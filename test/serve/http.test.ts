import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { type HttpServer, isLoopback, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';
import { WAIT } from '../helpers/wait.js';

const NOW = '2026-12-01T10:00:00+08:00';
const FILES = {
  'profile/user.md': '---\ntitle: User\n---\n# User\nLives in [[Tokyo]]. Loves ramen.\n',
  'insights/Tokyo.md': '# Tokyo\nA huge city with great ramen shops.\n',
};

let servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  await cleanupVaults();
});

async function start(
  files: Record<string, string> = FILES,
  options: { token?: string; stuck?: boolean } = {},
): Promise<{ root: string; vault: Vault; server: HttpServer }> {
  const root = await makeVault(files);
  const vault = await openVault({ path: root });
  await vault.watch();
  // A refresh that never ends within a read's deadline.
  if (options.stuck) vi.spyOn(vault, 'whenIdle').mockResolvedValue(false);
  const server = await serveHttp({ source: singleVault(vault), port: 0, token: options.token });
  servers.push(server);
  return { root, vault, server };
}

async function call(
  server: HttpServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** A raw request, so paths reach the server exactly as written (fetch would fold `..`). */
async function rawGet(server: HttpServer, path: string): Promise<{ status: number; json: unknown }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/`, { path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveHttp', () => {
  it('answers /recall with the same JSON as `mem recall --json`', async () => {
    const { root, server } = await start();
    const reply = await call(server, 'POST', '/recall', { query: 'ramen', k: 3, now: NOW });
    const cli = await mem(['recall', 'ramen', '-k', '3', '--now', NOW, '--json', '--vault', root]);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(JSON.parse(cli.stdout));
    expect((reply.json['hits'] as { path: string }[]).map((h) => h.path).sort()).toEqual([
      'insights/Tokyo.md',
      'profile/user.md',
    ]);
  });

  it('answers /compile with the same JSON as `mem compile --json`', async () => {
    const { root, server } = await start();
    const reply = await call(server, 'POST', '/compile', {
      message: 'where to eat ramen?',
      budget: 300,
      now: NOW,
    });
    const cli = await mem([
      'compile',
      'where to eat ramen?',
      '--budget',
      '300',
      '--now',
      NOW,
      '--json',
      '--vault',
      root,
    ]);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(JSON.parse(cli.stdout));
    expect(reply.json['budget']).toBe(300);
  });

  it('serves a note and its backlinks as `mem show --json` and `mem backlinks --json` do', async () => {
    const { root, server } = await start();
    const note = await call(server, 'GET', '/notes/insights/Tokyo.md');
    expect(note.status).toBe(200);
    expect(note.json).toEqual(
      JSON.parse((await mem(['show', 'insights/Tokyo.md', '--json', '--vault', root])).stdout),
    );
    const backlinks = await call(server, 'GET', '/backlinks/Tokyo');
    expect(backlinks.status).toBe(200);
    expect(backlinks.json['note']).toBe('insights/Tokyo.md');
    expect((backlinks.json['backlinks'] as { from: string }[]).map((e) => e.from)).toEqual([
      'profile/user.md',
    ]);
    const spaced = await call(server, 'GET', `/notes/${encodeURIComponent('profile/user')}`);
    expect((spaced.json['note'] as { path: string }).path).toBe('profile/user.md');
  });

  it('reports health with the number of notes', async () => {
    const { server } = await start();
    expect(await call(server, 'GET', '/health')).toEqual({
      status: 200,
      json: {
        status: 'ok',
        notes: 2,
        reflect: { enabled: false, running: false, newEntries: 0, failures: 0 },
      },
    });
  });

  it("appends to today's episode through POST /remember and finds it at once", async () => {
    const { root, server } = await start();
    const reply = await call(server, 'POST', '/remember', {
      text: 'Bought a blue umbrella',
      speaker: 'Rain',
      at: '2026-12-01T09:30:00+08:00',
    });
    expect(reply.status).toBe(200);
    expect(reply.json['path']).toBe('episodes/daily/2026-12-01.md');
    expect(reply.json['link']).toBe('[[2026-12-01#^e1]]');
    expect(await readFile(join(root, 'episodes/daily/2026-12-01.md'), 'utf8')).toContain(
      '- 09:30 **Rain:** Bought a blue umbrella ^e1',
    );
    const recall = await call(server, 'POST', '/recall', { query: 'umbrella', now: NOW });
    expect((recall.json['hits'] as { id: string }[]).map((h) => h.id)).toEqual([
      'episodes/daily/2026-12-01.md#^e1',
    ]);
  });

  it('reflects a note written, edited, renamed and deleted while serving in /recall and /backlinks', async () => {
    const { root, server } = await start();
    const recallPaths = async (query: string) =>
      ((await call(server, 'POST', '/recall', { query })).json['hits'] as { path: string }[]).map(
        (h) => h.path,
      );
    const backlinkSources = async () =>
      ((await call(server, 'GET', '/backlinks/Tokyo')).json['backlinks'] as { from: string }[]).map(
        (e) => e.from,
      );

    await writeFile(join(root, 'insights/trip.md'), '# Trip\nFlew to [[Tokyo]] with a kite.\n');
    await vi.waitFor(async () => expect(await recallPaths('kite')).toContain('insights/trip.md'), WAIT);
    expect((await backlinkSources()).sort()).toEqual(['insights/trip.md', 'profile/user.md']);

    await writeFile(join(root, 'insights/trip.md'), '# Trip\nFlew to [[Tokyo]] with a balloon.\n');
    await vi.waitFor(async () => expect(await recallPaths('balloon')).toContain('insights/trip.md'), WAIT);
    expect(await recallPaths('kite')).toEqual([]);

    await rename(join(root, 'insights/trip.md'), join(root, 'insights/voyage.md'));
    await vi.waitFor(async () => expect(await backlinkSources()).toContain('insights/voyage.md'), WAIT);
    await vi.waitFor(async () => expect(await backlinkSources()).not.toContain('insights/trip.md'), WAIT);
    // Tokyo follows as a graph neighbour of the hit; the old path is gone.
    expect(await recallPaths('balloon')).toEqual(['insights/voyage.md', 'insights/Tokyo.md']);

    await rm(join(root, 'insights/voyage.md'));
    await vi.waitFor(async () => expect(await recallPaths('balloon')).toEqual([]), WAIT);
    expect(await backlinkSources()).toEqual(['profile/user.md']);
  });

  it('marks a read "partial" when a refresh runs past the deadline', async () => {
    const { server } = await start(FILES, { stuck: true });
    const reply = await call(server, 'POST', '/recall', { query: 'ramen' });
    expect(reply.status).toBe(200);
    expect(reply.json['partial']).toBe(true);
    expect((reply.json['hits'] as unknown[]).length).toBe(2);
    const search = await call(server, 'POST', '/memory/search', { query: 'ramen' });
    expect(search.json['partial']).toBe(true);
  });

  describe('bad requests', () => {
    it('refuses a body that is not JSON, or not an object, with 400', async () => {
      const { server } = await start();
      expect(await call(server, 'POST', '/recall', '{"query": ')).toEqual({
        status: 400,
        json: { error: 'request body is not valid JSON' },
      });
      expect(await call(server, 'POST', '/recall', '[1]')).toEqual({
        status: 400,
        json: { error: 'request body must be a JSON object' },
      });
    });

    it('refuses fields of the wrong type with 400', async () => {
      const { server } = await start();
      expect(await call(server, 'POST', '/recall', { query: 42 })).toEqual({
        status: 400,
        json: { error: '"query" must be a string' },
      });
      expect(await call(server, 'POST', '/recall', { query: 'x', k: 0 })).toEqual({
        status: 400,
        json: { error: '"k" must be a positive whole number' },
      });
      expect(await call(server, 'POST', '/compile', {})).toEqual({
        status: 400,
        json: { error: '"message" is required and must be a string' },
      });
      expect(await call(server, 'POST', '/compile', { message: 'hi', now: 'yesterday-ish' })).toEqual({
        status: 400,
        json: { error: '"now" must be an ISO 8601 date or time' },
      });
      expect(await call(server, 'POST', '/remember', { text: 'x', kind: 'poem' })).toEqual({
        status: 400,
        json: { error: '"kind" must be one of chat, event, note' },
      });
    });

    it('refuses unknown fields with 400 naming them, and reads null as not given', async () => {
      const { server } = await start();
      expect(await call(server, 'POST', '/recall', { query: 'x', limit: 3 })).toEqual({
        status: 400,
        json: {
          error:
            'unknown field "limit"; expected query, k, now, layers, range, all, fresh, agent_id, user_id',
        },
      });
      expect(await call(server, 'POST', '/remember', { text: 'x', mood: 1, when: 'now' })).toEqual({
        status: 400,
        json: {
          error:
            'unknown fields "mood", "when"; expected text, speaker, kind, importance, tags, at, agent_id, user_id, settings',
        },
      });
      expect(await call(server, 'POST', '/remember', { text: 'x', tags: ['a', 1] })).toEqual({
        status: 400,
        json: { error: '"tags" must be an array of strings' },
      });
      expect(await call(server, 'POST', '/remember', { text: 'x', importance: 2 })).toEqual({
        status: 400,
        json: { error: '"importance" must be a number from 0 to 1' },
      });
      expect(await call(server, 'POST', '/remember', { text: '  ' })).toEqual({
        status: 400,
        json: { error: '"text" must not be empty' },
      });
      const reply = await call(server, 'POST', '/recall', {
        query: 'lighthouse',
        k: null,
        now: '2026-12-01T10:00:00+08:00',
      });
      expect(reply.status).toBe(200);
    });

    it('answers 404 for an unknown endpoint and 405 for a wrong method', async () => {
      const { server } = await start();
      expect(await call(server, 'GET', '/nope')).toEqual({
        status: 404,
        json: { error: 'no such endpoint: GET /nope' },
      });
      expect(await call(server, 'GET', '/recall')).toEqual({
        status: 405,
        json: { error: '/recall takes POST, not GET' },
      });
      expect((await call(server, 'POST', '/notes/profile/user.md', {})).status).toBe(405);
    });

    it('answers 404 for a note that does not exist', async () => {
      const { server } = await start();
      expect(await call(server, 'GET', '/notes/insights/Osaka.md')).toEqual({
        status: 404,
        json: { error: 'note not found: insights/Osaka.md', code: 'NOT_FOUND' },
      });
    });

    it('refuses a body over 1 MiB with 413', async () => {
      const { server } = await start();
      const reply = await call(server, 'POST', '/recall', { query: 'x'.repeat(1024 * 1024) });
      expect(reply).toEqual({ status: 413, json: { error: 'request body is over 1048576 bytes' } });
    });

    it('refuses note paths that leave the vault', async () => {
      const { server } = await start();
      expect(await rawGet(server, '/notes/../mem.config.json')).toEqual({
        status: 403,
        json: { error: 'path outside the vault: ../mem.config.json' },
      });
      expect(await rawGet(server, '/notes/profile/%2e%2e/%2e%2e/etc/passwd')).toEqual({
        status: 403,
        json: { error: 'path outside the vault: profile/../../etc/passwd' },
      });
      expect(await rawGet(server, '/notes/%2Fetc%2Fpasswd')).toEqual({
        status: 403,
        json: { error: 'path outside the vault: /etc/passwd' },
      });
      expect(await rawGet(server, '/backlinks/..%5C..%5Cwin.ini')).toEqual({
        status: 403,
        json: { error: 'path outside the vault: ..\\..\\win.ini' },
      });
      expect(await rawGet(server, '/notes/user%00.md')).toEqual({
        status: 400,
        json: { error: 'a note path must not contain NUL' },
      });
      expect(await rawGet(server, '/notes/%E0%A4%A')).toEqual({
        status: 400,
        json: { error: 'malformed percent-encoding in /notes/%E0%A4%A' },
      });
    });
  });

  describe('token', () => {
    it('requires the bearer token on every request when one is set', async () => {
      const { server } = await start(FILES, { token: 's3cret' });
      expect(await call(server, 'GET', '/health')).toEqual({
        status: 401,
        json: { error: 'missing or wrong bearer token' },
      });
      expect(
        (await call(server, 'GET', '/health', undefined, { authorization: 'Bearer wrong' })).status,
      ).toBe(401);
      expect((await call(server, 'GET', '/nope', undefined, { authorization: 'Bearer s3cre' })).status).toBe(
        401,
      );
      expect(await call(server, 'GET', '/health', undefined, { authorization: 'Bearer s3cret' })).toEqual({
        status: 200,
        json: {
          status: 'ok',
          notes: 2,
          reflect: { enabled: false, running: false, newEntries: 0, failures: 0 },
        },
      });
    });

    it('refuses to bind beyond loopback without a token', async () => {
      const root = await makeVault(FILES);
      const vault = await openVault({ path: root });
      await vault.watch();
      const source = singleVault(vault);
      await expect(serveHttp({ source, host: '0.0.0.0', port: 0 })).rejects.toThrow(
        'refusing to listen on 0.0.0.0 without a token',
      );
      await source.close();
    });

    it('treats only loopback names and addresses as loopback', () => {
      expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].map(isLoopback)).toEqual([
        true,
        true,
        true,
        true,
        true,
      ]);
      expect(['0.0.0.0', '::', '192.168.1.2', 'example.com', '128.0.0.1'].map(isLoopback)).toEqual([
        false,
        false,
        false,
        false,
        false,
      ]);
    });
  });
});
