import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { mem } from '../helpers/run-cli.js';
import { exited, startServe } from '../helpers/serve-process.js';

// One input schema per verb (src/api/inputs/): the same bad input gets the same words on every
// edge, and one code: the command line exits 2 (INVALID_ARGUMENT), HTTP answers 400, MCP a tool
// error. Each row is one bad value, as a command line, an HTTP body and MCP tool arguments.
interface Row {
  verb: 'remember' | 'recall' | 'compile';
  cli: string[];
  fields: Record<string, unknown>;
  words: string;
}

const ROWS: Row[] = [
  {
    verb: 'remember',
    cli: ['x', '--importance', '2'],
    fields: { text: 'x', importance: 2 },
    words: '"importance" must be a number from 0 to 1',
  },
  {
    verb: 'remember',
    cli: ['x', '--importance', 'lots'],
    fields: { text: 'x', importance: 'lots' },
    words: '"importance" must be a number from 0 to 1',
  },
  {
    verb: 'remember',
    cli: ['x', '--kind', 'diary'],
    fields: { text: 'x', kind: 'diary' },
    words: '"kind" must be one of chat, event, note',
  },
  {
    verb: 'remember',
    cli: ['x', '--at', 'soon'],
    fields: { text: 'x', at: 'soon' },
    words: '"at" must be an ISO 8601 date or time',
  },
  { verb: 'remember', cli: ['   '], fields: { text: '   ' }, words: '"text" must not be empty' },
  {
    verb: 'recall',
    cli: ['q', '-k', '0'],
    fields: { query: 'q', k: 0 },
    words: '"k" must be a positive whole number',
  },
  {
    verb: 'recall',
    cli: ['q', '-k', '1.5'],
    fields: { query: 'q', k: 1.5 },
    words: '"k" must be a positive whole number',
  },
  {
    verb: 'recall',
    cli: ['q', '--now', 'soon'],
    fields: { query: 'q', now: 'soon' },
    words: '"now" must be an ISO 8601 date or time',
  },
  {
    verb: 'recall',
    cli: ['q', '--layer', 'nope'],
    fields: { query: 'q', layers: ['nope'] },
    words: '"layers" must list layers of persona, profile, episodes, insights, archive, other',
  },
  {
    verb: 'recall',
    cli: ['q', '--from', '2026-02-30', '--to', '2026-03-01'],
    fields: { query: 'q', range: { from: '2026-02-30', to: '2026-03-01' } },
    words: '"range.from" must be a date YYYY-MM-DD',
  },
  {
    verb: 'recall',
    cli: ['q', '--from', '2026-11-05', '--to', '2026-11-01'],
    fields: { query: 'q', range: { from: '2026-11-05', to: '2026-11-01' } },
    words: '"range.from" is after "range.to"',
  },
  {
    verb: 'compile',
    cli: ['m', '--budget', '1.5'],
    fields: { message: 'm', budget: 1.5 },
    words: '"budget" must be a positive whole number',
  },
  {
    verb: 'compile',
    cli: ['m', '--tokenizer', 'gpt2'],
    fields: { message: 'm', tokenizer: 'gpt2' },
    words: '"tokenizer" must be o200k_base or cl100k_base',
  },
  {
    verb: 'compile',
    cli: ['m', '--now', 'soon'],
    fields: { message: 'm', now: 'soon' },
    words: '"now" must be an ISO 8601 date or time',
  },
];

let root: string;
let vault: Vault;
let server: HttpServer;
let client: Client;

beforeAll(async () => {
  root = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
  vault = await openVault({ path: root });
  server = await serveHttp({ source: singleVault(vault), port: 0 });
  client = await connectMcp(root);
});

afterAll(async () => {
  await client.close();
  await server.close();
  await vault.close();
  await cleanupVaults();
});

async function http(
  verb: Row['verb'],
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/${verb}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function mcp(
  verb: Row['verb'],
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string }> {
  const result = (await client.callTool({ name: `memory_${verb}`, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
  };
  return { isError: Boolean(result.isError), text: result.content.map((c) => c.text ?? '').join('') };
}

describe('one input schema per verb: the same words and code on every edge', () => {
  it.each(ROWS)('$verb $cli: $words', async ({ verb, cli, fields, words }) => {
    const run = await mem(['--vault', root, '--no-server', verb, ...cli], { env: { MEM_NO_DAEMON: '1' } });
    expect(run).toEqual({ code: 2, stdout: '', stderr: `mem: ${words}\n` });

    const answer = await http(verb, fields);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe(words);

    const tool = await mcp(verb, fields);
    expect(tool.isError).toBe(true);
    expect(tool.text).toContain(words);
  });

  it('note edits: a bad hash, from the command line and from MCP (no HTTP route edits notes)', async () => {
    const words = '"hash" must be the 64 hex digits a read of the note gave';
    const run = await mem(['--vault', root, 'note', 'append', 'profile/user', 'more', '--hash', 'abc']);
    expect(run).toEqual({ code: 2, stdout: '', stderr: `mem: ${words}\n` });
    const result = (await client.callTool({
      name: 'memory_edit_note',
      arguments: { path: 'profile/user', mode: 'append', text: 'more', hash: 'abc' },
    })) as { isError?: boolean; content: { text?: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content.map((c) => c.text).join('')).toContain(words);
  });

  it('import and config set, which only the command line offers, refuse in their schemas’ words', async () => {
    const format = await mem(['--vault', root, 'import', 'x.json', '--format', 'csv']);
    expect(format).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mem: "format" must be one of chatgpt, claude, mcp-memory, vtuber, journal\n',
    });
    const key = await mem(['--vault', root, 'config', 'set', 'recall..k', '3']);
    expect(key).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mem: "key" must be a dotted key such as reflect.maxTokensPerDay\n',
    });
  });

  it('a running mem serve asked by the command line refuses it, and the command exits 2 in the same words', async () => {
    // `mem recall` asks the vault's running server first; the server's 400 sends it to check the
    // flags itself, with the same schema.
    const served = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
    const { child } = await startServe(served);
    try {
      const env = { MEM_NO_DAEMON: '1', MEM_TRACE: '1' };
      const good = await mem(['--vault', served, 'recall', 'ramen', '-k', '1'], { env });
      expect(good.stderr).toContain('answered by mem serve');
      const row = ROWS.find((r) => r.verb === 'recall' && r.cli.includes('-k'))!;
      const bad = await mem(['--vault', served, 'recall', ...row.cli], { env });
      expect(bad).toEqual({ code: 2, stdout: '', stderr: `mem: ${row.words}\n` });
    } finally {
      child.kill();
      await exited(child);
    }
  });

  it('the library refuses what the edges refuse, with the same code', async () => {
    const { checkInput } = await import('../../src/api/inputs/check-input.js');
    const { rememberInput } = await import('../../src/api/inputs/remember.js');
    expect(() => checkInput(rememberInput, { text: 'x', importance: 2 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        exitCode: 2,
        message: '"importance" must be a number from 0 to 1',
      }),
    );
  });
});
