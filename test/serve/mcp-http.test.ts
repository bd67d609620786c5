import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

// `mem mcp --http` from the built CLI (`npm run build` first): the same tools over streamable HTTP,
// behind mem serve's token and Host/Origin rules.
const TOKEN = 'mcp-test-token';
let child: ChildProcess;
let url: URL;

beforeAll(async () => {
  const root = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
  child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/cli/main.js'), 'mcp', '--http', '--port', '0', '--token', TOKEN, '--vault', root],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  url = await new Promise<URL>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /MCP over streamable HTTP at (\S+)/.exec(text);
      if (found?.[1]) resolve(new URL(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`mem mcp --http exited ${code}: ${text}`)));
  });
});

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await cleanupVaults();
});

/** A raw POST, with headers a client (or a web page) chooses. */
function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('mem mcp --http', () => {
  it('serves the tools to an MCP client that sends the token, and a remember shows in the next recall', async () => {
    const client = new Client({ name: 'memvault-http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('memory_set_frontmatter');
      expect(client.getInstructions()).toContain('memory_remember');
      await client.callTool({ name: 'memory_remember', arguments: { text: 'Rain bought a kayak' } });
      const recalled = (await client.callTool({ name: 'memory_recall', arguments: { query: 'kayak' } })) as {
        content: { text: string }[];
      };
      expect(recalled.content[0]?.text).toMatch(/^- \[\[\d{4}-\d{2}-\d{2}#\^\w+\]\] .*Rain bought a kayak/);
    } finally {
      await client.close();
    }
  });

  it('refuses a request without the token, from another Host, or from a web page of another origin', async () => {
    const host = `127.0.0.1:${url.port}`;
    expect(await post({ authorization: `Bearer ${TOKEN}`, host })).toMatchObject({ status: 200 });
    const missing = await post({ host });
    expect(missing.status).toBe(401);
    expect(missing.body).toContain('missing or wrong bearer token');
    expect((await post({ authorization: 'Bearer wrong', host })).status).toBe(401);
    const rebound = await post({ authorization: `Bearer ${TOKEN}`, host: `evil.example:${url.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('is not a name of this server');
    const page = await post({ authorization: `Bearer ${TOKEN}`, host, origin: 'https://evil.example' });
    expect(page.status).toBe(403);
    expect(page.body).toContain('may not call this server');
  });

  it('answers POST /mcp only: other paths are 404, and GET (no server-sent stream, stateless) 405', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const other = await fetch(new URL('/notes', url), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(other.status).toBe(404);
    const get = await fetch(url, { headers: { ...auth, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const root = await makeVault({});
    const run = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'dist/cli/main.js'),
        'mcp',
        '--http',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--vault',
        root,
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
        timeout: 20_000,
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('refusing to listen on 0.0.0.0 without a token');
  });
});
