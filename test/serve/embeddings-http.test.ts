import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';

const NOW = '2026-11-30T10:00:00Z';
const KNEE = 'How is your knee?';
const EVIDENCE = 'The physio says the ligament is healing well.';
const FILES: Record<string, string> = {
  'episodes/daily/2026-11-10.md': `---\ndate: 2026-11-10\n---\n# 2026-11-10\n\n- 10:00 **Rain:** Bought green tea at the market. ^e1\n- 11:00 **Rain:** ${EVIDENCE} ^e2\n`,
  'profile/food.md': '# Food\nRain loves spicy noodles and green tea.\n',
};
// Days of chatter after it: the newest entries, which compile shows anyway, never hold the evidence.
for (let d = 20; d <= 29; d++)
  FILES[`episodes/daily/2026-11-${d}.md`] =
    `---\ndate: 2026-11-${d}\n---\n# 2026-11-${d}\n\n- 10:00 **Rain:** Walked to the bakery on day ${d} and talked about the weather. ^e1\n- 11:00 **Rain:** Watched a film about pelicans, number ${d}. ^e2\n`;

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
let servers: HttpServer[] = [];

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterEach(async () => {
  stub.state.failWith = undefined;
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  stub.requests.length = 0;
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

/** A server as `mem serve` opens its vault: sections embedded in the background. */
async function serve(embeddings: object): Promise<HttpServer> {
  const root = await makeVault(FILES, {
    config: {
      timezone: 'UTC',
      git: { autoCommit: false },
      embeddings: { baseURL: stub.baseURL, model: 'stub-1', ...embeddings },
    },
  });
  const vault = await openVault({ path: root, embedSections: 'background' });
  const server = await serveHttp({ source: singleVault(vault), port: 0 });
  servers.push(server);
  return server;
}

async function call(server: HttpServer, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

type Health = { embeddings?: { model: string; state: string; unembedded?: number; error?: string } };

describe('HTTP with embeddings on', () => {
  it('/compile and /memory/search bring in evidence that shares no word, sending only the query', async () => {
    const server = await serve({ enabled: true });
    // Embedded in the background after open; /health says when.
    await expect
      .poll(async () => ((await call(server, '/health')).json as Health).embeddings?.unembedded, WAIT)
      .toBe(0);
    const before = stub.requests.length;

    const compiled = await call(server, '/compile', { message: KNEE, budget: 600, now: NOW });
    expect(compiled.status).toBe(200);
    expect(compiled.json['markdown']).toContain('ligament is healing');
    expect(compiled.json['embeddings']).toEqual({
      model: 'stub-1',
      ranking: 'fused',
      fusion: 'rrf k=60',
      unembedded: 0,
    });

    const searched = await call(server, '/memory/search', { query: KNEE, limit: 3, now: NOW });
    expect(searched.status).toBe(200);
    const results = searched.json['results'] as Array<{ memory: string }>;
    expect(results.map((r) => r.memory)).toContain(EVIDENCE);

    expect(stub.requests.slice(before)).toEqual([[KNEE], [KNEE]]);
    const health = (await call(server, '/memory/health')).json as Health;
    expect(health.embeddings).toEqual({ model: 'stub-1', state: 'ok', unembedded: 0 });
  });

  it('an endpoint that is down: 200 with the lexical answer, and health says down', async () => {
    stub.state.failWith = 500;
    const server = await serve({ enabled: true });
    const compiled = await call(server, '/compile', { message: KNEE, budget: 600, now: NOW });
    expect(compiled.status).toBe(200);
    expect(compiled.json['markdown']).not.toContain('ligament');
    expect(compiled.json['embeddings']).toMatchObject({ ranking: 'lexical' });
    const searched = await call(server, '/memory/search', { query: 'green tea', now: NOW });
    expect(searched.status).toBe(200);
    expect((searched.json['results'] as unknown[]).length).toBeGreaterThan(0);
    const health = (await call(server, '/memory/health')).json as Health;
    expect(health.embeddings).toMatchObject({
      model: 'stub-1',
      state: 'down',
      error: expect.stringMatching(/500/),
    });
  });

  it('off: no request, no embeddings field, and the same answers as the lexical library calls', async () => {
    const server = await serve({});
    const compiled = await call(server, '/compile', { message: KNEE, budget: 600, now: NOW });
    expect('embeddings' in compiled.json).toBe(false);
    expect(compiled.json['markdown']).not.toContain('ligament');
    const health = (await call(server, '/health')).json;
    expect('embeddings' in health).toBe(false);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('mem serve --workers with embeddings on', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('its read workers rank by meaning from the vectors the server embedded, never embedding a section', async () => {
    const root = await makeVault(FILES, {
      config: {
        timezone: 'UTC',
        git: { autoCommit: false },
        embeddings: { enabled: true, baseURL: stub.baseURL, model: 'stub-1' },
      },
    });
    const { child, url } = await startServe(root, ['--vault', root, '--workers', '1']);
    children.push(child);
    const get = async (path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await response.json()) as Record<string, unknown> & {
        readers?: { ready: number; answered: { workers: number } };
        embeddings?: { unembedded?: number };
      };
    };
    await expect.poll(async () => (await get('/health')).readers?.ready, WAIT).toBe(1);
    await expect.poll(async () => (await get('/health')).embeddings?.unembedded, WAIT).toBe(0);
    // Three at once, so the worker answers some; it reads the cache file the server saved.
    await expect
      .poll(async () => {
        const answers = await Promise.all(
          [0, 1, 2].map(() => get('/compile', { message: KNEE, budget: 600, now: NOW })),
        );
        const workers = (await get('/health')).readers?.answered.workers ?? 0;
        return workers > 0 && answers.every((a) => String(a['markdown']).includes('ligament is healing'));
      }, WAIT)
      .toBe(true);
    // The evidence was embedded once, by the server; every other request was a query.
    expect(stub.requests.filter((input) => input.some((text) => text.includes('ligament')))).toHaveLength(1);
    expect(stub.requests.filter((input) => input.length === 1 && input[0] === KNEE).length).toBeGreaterThan(
      2,
    );
  });
});
