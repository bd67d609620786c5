// mem compile and the MCP tools (built dist/, real processes) with embeddings through a loopback stub.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { startEmbedStub } from '../helpers/embed-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { mem } from '../helpers/run-cli.js';

const NOW = '2026-11-30T10:00:00Z';
const KNEE = 'How is your knee?';
const EVIDENCE = 'The physio says the ligament is healing well.';
const FILES: Record<string, string> = {
  'episodes/daily/2026-11-10.md': `---\ndate: 2026-11-10\n---\n# 2026-11-10\n\n- 10:00 **Rain:** Bought green tea at the market. ^e1\n- 11:00 **Rain:** ${EVIDENCE} ^e2\n`,
};
for (let d = 20; d <= 29; d++)
  FILES[`episodes/daily/2026-11-${d}.md`] =
    `---\ndate: 2026-11-${d}\n---\n# 2026-11-${d}\n\n- 10:00 **Rain:** Walked to the bakery on day ${d} and talked about the weather. ^e1\n- 11:00 **Rain:** Watched a film about pelicans, number ${d}. ^e2\n`;

let stub: Awaited<ReturnType<typeof startEmbedStub>>;

beforeAll(async () => {
  stub = await startEmbedStub();
});
afterEach(() => {
  stub.state.failWith = undefined;
});
afterAll(async () => {
  await stub.close();
  await cleanupVaults();
});

const vaultWith = (embeddings: object) =>
  makeVault(FILES, {
    config: {
      timezone: 'UTC',
      git: { autoCommit: false },
      embeddings: { baseURL: stub.baseURL, model: 'stub-1', ...embeddings },
    },
  });

describe('mem compile with embeddings', () => {
  it('puts evidence that shares no word into the document, and --explain says how', async () => {
    const root = await vaultWith({ enabled: true });
    const out = await mem(['compile', KNEE, '--budget', '600', '--now', NOW, '--explain'], { cwd: root });
    expect(out.code).toBe(0);
    const [document, explain] = out.stdout.split('\n--- explain ---\n');
    expect(document).toContain('> The physio says the ligament is healing well.');
    expect(explain).toMatch(/^embeddings \(stub-1\): words and meaning fused \(rrf k=60\)\n/);
    expect(explain).toMatch(
      /episodes\/daily\/2026-11-10\.md#\^e2 .*\n\s+why: .*rank fusion: words -, meaning #1 \(RRF k=60\)/,
    );
    // The sections, then the message: nothing else on the turn's path.
    expect(stub.requests.at(-1)).toEqual([KNEE]);
  });

  it('an endpoint that is down does not fail the turn: the lexical document, and --explain says why', async () => {
    const root = await vaultWith({ enabled: true });
    stub.state.failWith = 502;
    const out = await mem(['compile', KNEE, '--budget', '600', '--now', NOW, '--explain'], { cwd: root });
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain('ligament');
    expect(out.stdout).toMatch(
      /embeddings \(stub-1\): not used, the embeddings endpoint failed \(.*502.*\); ranked by words/,
    );
    const plain = await mem(['compile', KNEE, '--budget', '600', '--now', NOW], { cwd: root });
    const vault = await openVault({ path: root });
    try {
      expect(plain.stdout).toBe(vault.compile({ message: KNEE, budget: 600, now: new Date(NOW) }).markdown);
    } finally {
      await vault.close();
    }
  });

  it('off: the same document as before, byte for byte, and nothing is sent', async () => {
    const root = await vaultWith({});
    const sent = stub.requests.length;
    const vault = await openVault({ path: root });
    try {
      for (const message of [KNEE, 'bakery weather', 'pelicans']) {
        const out = await mem(['compile', message, '--budget', '600', '--now', NOW, '--json'], { cwd: root });
        expect(out.code).toBe(0);
        const lexical = vault.compile({ message, budget: 600, now: new Date(NOW) });
        expect(out.stdout).toBe(`${JSON.stringify(lexical, null, 2)}\n`);
      }
      const explained = await mem(['compile', KNEE, '--budget', '600', '--now', NOW, '--explain'], {
        cwd: root,
      });
      expect(explained.stdout).not.toMatch(/^embeddings/m);
    } finally {
      await vault.close();
    }
    expect(stub.requests.length).toBe(sent);
  });
});

describe('MCP tools with embeddings', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = (await client?.callTool({ name, arguments: args })) as { content: { text: string }[] };
    return result.content.map((c) => c.text).join('');
  };

  it('memory_compile and memory_recall rank by meaning too, and their metadata line says so', async () => {
    const root = await vaultWith({ enabled: true });
    client = await connectMcp(root);
    // mem mcp embeds the vault in the background; until then reads rank by words, never fail.
    await expect
      .poll(async () => call('memory_compile', { message: KNEE, budget: 600, now: NOW }), {
        timeout: 60_000,
        interval: 50,
      })
      .toContain('ligament is healing');
    const compiled = await call('memory_compile', { message: KNEE, budget: 600, now: NOW });
    expect(compiled).toMatch(/memvault compile: \d+ tokens of a 600 budget · ranked by words and meaning$/);
    const recalled = await call('memory_recall', { query: KNEE, k: 3, now: NOW });
    expect(recalled).toContain('ligament');
    expect(recalled).toMatch(/ranked by words and meaning$/);
  });

  it('a down endpoint: lexical answers whose metadata line says so', async () => {
    const root = await vaultWith({ enabled: true });
    stub.state.failWith = 500;
    client = await connectMcp(root);
    const compiled = await call('memory_compile', { message: KNEE, budget: 600, now: NOW });
    expect(compiled).not.toContain('ligament');
    expect(compiled).toMatch(/ranked by words only \(embeddings unavailable\)$/);
  });
});
