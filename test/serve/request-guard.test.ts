import { request } from 'node:http';
import { homedir } from 'node:os';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';

// What a web page the user has open can make the browser send to `mem serve` on loopback, and
// what the server must answer: only requests that name this server in Host, come from no other
// page (or an allowed one) and send their body as JSON reach a route; reads and writes alike.

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with exactly these headers (fetch would set Host and Origin itself). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body = '') {
  return new Promise<Raw>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers, setHost: false, agent: false },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ROUTES: { method: 'GET' | 'POST'; path: string; body?: object }[] = [
  { method: 'POST', path: '/recall', body: { query: 'ramen' } },
  { method: 'POST', path: '/compile', body: { message: 'ramen', budget: 200 } },
  { method: 'POST', path: '/remember', body: { text: 'guarded write' } },
  { method: 'GET', path: '/notes/profile/user.md' },
  { method: 'GET', path: '/backlinks/profile/user.md' },
  { method: 'GET', path: '/health' },
  { method: 'POST', path: '/memory/search', body: { query: 'ramen' } },
  { method: 'POST', path: '/memory/add', body: { user_text: 'guarded add', commit: 'user' } },
  { method: 'GET', path: '/memory/health' },
  // The web page's files and the routes it reads (page-assets.ts, page-routes.ts)
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/page.mjs' },
  { method: 'GET', path: '/page.css' },
  { method: 'GET', path: '/days' },
  { method: 'GET', path: '/days/2026-11-10' },
  { method: 'GET', path: `/turn?entry=${encodeURIComponent('episodes/daily/2026-11-10.md#^e1')}` },
  { method: 'GET', path: '/markdown/profile/user.md' },
];

/** Requests tried: each writes when it is answered, so the default tier keeps to a few seconds. */
const RUNS = process.env['MEM_SLOW'] ? 2000 : 150;
const SECRET = 'Loves ramen';
const ALLOWED_ORIGIN = 'http://localhost:5173';

let root: string;
let vault: Vault;
let server: HttpServer;
let port: number;
const failures: unknown[] = [];

beforeAll(async () => {
  root = await makeVault({
    'profile/user.md': `# User\n${SECRET}.\n`,
    'episodes/daily/2026-11-10.md': '# 2026-11-10\n\n- 09:14 **Rain:** where was that ramen place? ^e1\n',
  });
  vault = await openVault({ path: root });
  server = await serveHttp({
    source: singleVault(vault),
    port: 0,
    allowedHosts: ['mybox.local'],
    allowedOrigins: [ALLOWED_ORIGIN],
    onError: (error) => failures.push(error),
  });
  port = server.port;
});

afterAll(async () => {
  await server?.close();
  await cleanupVaults();
});

/** Every form a Host header takes: names, addresses, case, trailing dots, rebinding names; with every port form. */
const hostNames = fc.constantFrom(
  'localhost',
  'LOCALHOST',
  'LocalHost',
  '127.0.0.1',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '::1',
  '[::ffff:127.0.0.1]',
  '127.0.0.2',
  '127.1',
  '2130706433',
  '0x7f000001',
  '0.0.0.0',
  'localhost.',
  '127.0.0.1.',
  'evil.com',
  '127.0.0.1.nip.io',
  'localhost.evil.com',
  'evil.localhost',
  'mybox.local',
  'MyBox.Local',
  'mybox.local.',
  '',
);
// Weighted to the bound port, so that the names and the origins are tried where they matter.
const hostPorts = fc.oneof(
  { arbitrary: fc.constant('own'), weight: 4 },
  { arbitrary: fc.constantFrom('none', 'other', 'zero-padded', ':80', ':'), weight: 2 },
);
const origins = fc.constantFrom(
  undefined,
  'same',
  'null',
  'http://evil.com',
  'http://127.0.0.1.nip.io',
  ALLOWED_ORIGIN,
  'http://localhost:5174',
  'https://127.0.0.1',
  'http://localhost',
);
const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  undefined,
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonp',
  'application/json-seq',
  'text/json',
);

/** The rule, written plainly: the names this server has, with its port. */
function hostAllowed(host: string): boolean {
  const names = ['localhost', '127.0.0.1', '[::1]', 'mybox.local'].map((n) => `${n}:${port}`);
  return names.includes(host.toLowerCase());
}

function hostValue(name: string, form: string): string {
  if (form === 'own') return `${name}:${port}`;
  if (form === 'other') return `${name}:${port + 1}`;
  if (form === 'zero-padded') return `${name}:0${port}`;
  if (form === ':') return `${name}:`;
  if (form === ':80') return `${name}:80`;
  return name;
}

const tried = { requests: 0 };

describe('which requests mem serve answers', () => {
  it('only a request naming this server, from no other page, with a JSON body reaches a route (every route)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        hostNames,
        hostPorts,
        origins,
        contentTypes,
        async (route, name, form, origin, type) => {
          tried.requests++;
          const host = hostValue(name, form);
          const originValue = origin === 'same' ? `http://${host}` : origin;
          const headers: Record<string, string> = { host };
          if (originValue !== undefined) headers['origin'] = originValue;
          if (type !== undefined) headers['content-type'] = type;
          const body = route.body ? JSON.stringify(route.body) : '';
          const reply = await raw(port, route.method, route.path, headers, body);

          const originOk =
            originValue === undefined ||
            originValue === ALLOWED_ORIGIN ||
            (origin === 'same' && hostAllowed(host));
          const typeOk =
            route.method === 'GET' || type?.split(';')[0]?.trim().toLowerCase() === 'application/json';
          const expected = !hostAllowed(host) || !originOk ? 403 : !typeOk ? 415 : 200;
          expect({ host, origin: originValue, type, status: reply.status }).toEqual({
            host,
            origin: originValue,
            type,
            status: expected,
          });
          if (expected !== 200) expect(reply.text).not.toContain(SECRET);
          // CORS headers only for the one allowed other page, and only when it was answered.
          const cors = reply.headers['access-control-allow-origin'];
          expect(cors).toBe(expected === 200 && originValue === ALLOWED_ORIGIN ? ALLOWED_ORIGIN : undefined);
        },
      ),
      { numRuns: RUNS },
    );
    await reportReliability({
      class: 'requests by Host, Origin and content type (real HTTP, every route)',
      requests: tried.requests,
      misjudged: 0,
    });
  }, 60_000);

  it('a refused write writes nothing: a cross-origin text/plain POST and a rebinding Host leave the vault as it was', async () => {
    const before = vault.noteCount;
    const attempts: Record<string, string>[] = [
      { host: `127.0.0.1:${port}`, origin: 'http://evil.com', 'content-type': 'text/plain' },
      { host: `127.0.0.1:${port}`, 'content-type': 'text/plain;charset=UTF-8' },
      { host: `evil.com:${port}`, 'content-type': 'application/json' },
    ];
    for (const headers of attempts) {
      for (const path of ['/remember', '/memory/add']) {
        const body = JSON.stringify({ text: 'forged', user_text: 'forged' });
        const reply = await raw(port, 'POST', path, headers, body);
        expect([403, 415]).toContain(reply.status);
      }
    }
    const found = vault.recall('forged', { all: true });
    expect(found.hits).toEqual([]);
    expect(vault.noteCount).toBe(before);
  });

  it('answers a preflight with CORS headers only for an allowed origin', async () => {
    for (const origin of [ALLOWED_ORIGIN, 'http://evil.com', 'null', undefined]) {
      const headers: Record<string, string> = {
        host: `127.0.0.1:${port}`,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      };
      if (origin) headers['origin'] = origin;
      const reply = await raw(port, 'OPTIONS', '/memory/add', headers);
      const allowed = origin === ALLOWED_ORIGIN;
      expect(reply.status).toBe(allowed ? 204 : 403);
      const names = Object.keys(reply.headers).filter((n) => n.startsWith('access-control-allow'));
      expect(names.sort()).toEqual(
        allowed
          ? ['access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']
          : [],
      );
    }
  });

  it('a 500 names neither the vault folder nor the home folder; onError gets the whole error', async () => {
    const message = `EIO: i/o error, open '${root}/episodes/daily/2026-12-01.md' (see ${homedir()}/.npmrc)`;
    const spy = vi.spyOn(vault, 'remember').mockRejectedValueOnce(new Error(message));
    const reply = await raw(
      port,
      'POST',
      '/remember',
      { host: `localhost:${port}`, 'content-type': 'application/json' },
      JSON.stringify({ text: 'x' }),
    );
    spy.mockRestore();
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.text)).toEqual({
      error: "internal error: EIO: i/o error, open '<vault>/episodes/daily/2026-12-01.md' (see ~/.npmrc)",
    });
    expect(reply.text).not.toContain(root);
    expect(reply.text).not.toContain(homedir());
    expect(failures.map((f) => (f as Error).message)).toContain(message);
  });
});

describe('a server bound to every interface (with a token)', () => {
  it('answers every interface address of this machine as its Host, and still refuses other names', async () => {
    const { networkInterfaces } = await import('node:os');
    const other = await openVault({ path: await makeVault({}) });
    const wide = await serveHttp({ source: singleVault(other), port: 0, host: '0.0.0.0', token: 't' });
    try {
      const addresses = Object.values(networkInterfaces())
        .flatMap((list) => list ?? [])
        .map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address));
      const auth = { authorization: 'Bearer t' };
      for (const address of addresses) {
        const reply = await raw(wide.port, 'GET', '/health', { host: `${address}:${wide.port}`, ...auth });
        expect({ address, status: reply.status }).toEqual({ address, status: 200 });
      }
      for (const host of ['evil.com', '127.0.0.1.nip.io']) {
        const reply = await raw(wide.port, 'GET', '/health', { host: `${host}:${wide.port}`, ...auth });
        expect(reply.status).toBe(403);
      }
    } finally {
      await wide.close();
    }
  });
});
