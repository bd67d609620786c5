import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { mem } from '../helpers/run-cli.js';

// Obsidian comments are notes to the person editing the vault: nothing inside one may leave it,
// through any output. Each note holds a closed comment and an unclosed one (which hides the rest
// of the note), each with a word found nowhere else. Runs the built CLI (`npm run build` first).
const SECRETS = ['zebrafish', 'quokka', 'narwhal', 'axolotl'];
const NOW = '2026-11-30T10:00:00+08:00';
const FILES = {
  'persona/identity.md':
    '---\npinned: true\n---\n# Me\nYou are kind. %%zebrafish: remember to soften this%%\n\n%% quokka\n## Hidden heading quokka\nStill hidden quokka. ^quokka\n',
  'profile/user.md':
    '---\npinned: true\n---\n# User\nLoves ramen, %%narwhal%% mostly tonkotsu.\n\n## Food\nRamen every Friday.\n%%\nramen axolotl [[axolotl]] #axolotl\n',
  'episodes/daily/2026-11-29.md':
    '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** Had ramen with Mei %%zebrafish%% downtown. ^e1\n- 12:00 **Rain:** More ramen. %%quokka ramen narwhal ^e2\n- 13:00 ramen axolotl ^e3\n',
};

function expectNoSecret(output: string): void {
  for (const secret of SECRETS) expect(output.toLowerCase()).not.toContain(secret);
}

let root: string;

beforeAll(async () => {
  root = await makeVault(FILES);
});

afterAll(cleanupVaults);

describe('comments never leave the vault', () => {
  it('through the library: recall hits, snippets, compile and the note itself', async () => {
    const vault = await openVault({ path: root, cache: false });
    const recall = vault.recall('ramen', { k: 20, now: new Date(NOW) });
    expect(recall.hits.length).toBeGreaterThan(0);
    expectNoSecret(JSON.stringify(recall));
    for (const secret of SECRETS) expect(vault.recall(secret, { now: new Date(NOW) }).hits).toEqual([]);
    const compiled = vault.compile({ message: 'ramen', budget: 2000, now: new Date(NOW) });
    expect(compiled.markdown).toContain('Loves ramen, mostly tonkotsu.');
    expect(compiled.markdown).toContain('Had ramen with Mei downtown.');
    expectNoSecret(JSON.stringify(compiled));
    for (const path of Object.keys(FILES)) expectNoSecret(JSON.stringify(vault.note(path)));
    expect(vault.note('persona/identity.md').headings.map((h) => h.text)).toEqual(['Me']);
    expect(vault.note('profile/user.md').tags).toEqual([]);
  });

  it('through the CLI: recall, compile and show', async () => {
    const runs = await Promise.all([
      mem(['--vault', root, 'recall', 'ramen', '--now', NOW]),
      mem(['--vault', root, 'recall', 'ramen', '--json', '--now', NOW]),
      mem(['--vault', root, 'compile', 'ramen', '--now', NOW]),
      ...Object.keys(FILES).map((path) => mem(['--vault', root, 'show', path])),
      ...Object.keys(FILES).map((path) => mem(['--vault', root, 'show', path, '--json'])),
    ]);
    for (const run of runs) {
      // compile says what the document cost on stderr (mem: used/budget tokens), nothing else.
      expect(run.stderr.replace(/^mem: \d+\/\d+ tokens \(\w+\)\n$/, '')).toBe('');
      expect(run.code).toBe(0);
      expectNoSecret(run.stdout);
    }
    expect(runs[0]?.stdout).toContain('ramen');
  });

  it('through the reflect prompt, which shows notes and episodes to a model', async () => {
    const stub = await startLlmStub(() => '{"operations":[]}');
    try {
      const vault = await openVault({ path: root, cache: false });
      await vault.reflect({ now: new Date(NOW), dryRun: true, llmOptions: { baseURL: stub.baseURL } });
      const prompt = stub.requests.map((r) => r.messages.map((m) => m.content).join('\n')).join('\n');
      expect(prompt).toContain('Loves ramen, mostly tonkotsu.');
      expect(prompt).toContain('Had ramen with Mei downtown.');
      expectNoSecret(prompt);
    } finally {
      await stub.close();
    }
  });

  describe('through HTTP', () => {
    let server: ChildProcess;
    let url: string;

    beforeAll(async () => {
      server = spawn(
        process.execPath,
        [join(REPO_ROOT, 'dist/cli/main.js'), 'serve', '--port', '0', '--vault', root],
        {
          env: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      let out = '';
      server.stdout?.setEncoding('utf8');
      url = await new Promise<string>((resolve, reject) => {
        server.once('exit', (code) => reject(new Error(`mem serve exited with ${code}: ${out}`)));
        server.stdout?.on('data', (chunk: string) => {
          out += chunk;
          const found = /https?:\/\/\S+/.exec(out)?.[0];
          if (found) resolve(found.replace(/\/$/, ''));
        });
      });
    });

    afterAll(async () => {
      if (server.exitCode !== null) return;
      server.kill();
      await once(server, 'exit');
    });

    const post = async (path: string, body: unknown): Promise<string> => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return response.text();
    };

    it('from /memory/search, /recall, /compile and /notes', async () => {
      const search = await post('/memory/search', { query: 'ramen', limit: 20 });
      expect(search).toContain('ramen');
      expectNoSecret(search);
      expectNoSecret(await post('/recall', { query: 'ramen', k: 20, now: NOW }));
      expectNoSecret(await post('/compile', { message: 'ramen', budget: 2000, now: NOW }));
      for (const path of Object.keys(FILES)) {
        const response = await fetch(`${url}/notes/${encodeURIComponent(path)}`);
        expect(response.status).toBe(200);
        expectNoSecret(await response.text());
      }
      for (const secret of SECRETS)
        expect(JSON.parse(await post('/memory/search', { query: secret }))).toMatchObject({ count: 0 });
    });
  });

  describe('through MCP', () => {
    let client: Client;

    beforeAll(async () => {
      client = await connectMcp(root);
    });

    afterAll(async () => {
      await client?.close();
    });

    it('from memory_recall, memory_compile and memory_read_note', async () => {
      const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
        const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[] };
        return result.content.map((c) => c.text).join('');
      };
      const recall = await call('memory_recall', { query: 'ramen', k: 20, now: NOW });
      expect(recall).toContain('ramen');
      expectNoSecret(recall);
      const compiled = await call('memory_compile', { message: 'ramen', budget: 2000, now: NOW });
      expect(compiled).toContain('tonkotsu');
      expectNoSecret(compiled);
      for (const path of Object.keys(FILES)) {
        const note = await call('memory_read_note', { path });
        expect(note).toContain(path);
        expectNoSecret(note);
      }
    });
  });
});
