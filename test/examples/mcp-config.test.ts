import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

// The client snippets in examples/mcp/ run `mem mcp` as they say. Formats: Claude Desktop and
// Cursor read `mcpServers` (modelcontextprotocol.io/quickstart/user, docs.cursor.com/context/mcp),
// Claude Code's `.mcp.json` the same with `type` (docs.anthropic.com/en/docs/claude-code/mcp), VS
// Code's `.vscode/mcp.json` reads `servers` (code.visualstudio.com/docs/copilot/chat/mcp-servers),
// Codex's `~/.codex/config.toml` a `[mcp_servers.<name>]` table (github.com/openai/codex, docs/config.md).
// Each is parsed, its placeholder vault swapped for a real one, and the server started from it.
// `mem mcp install <client> --print` prints these same bytes (test/cli/mcp-install.test.ts).
const DIR = join(REPO_ROOT, 'examples/mcp');
const PLACEHOLDER = '/absolute/path/to/your/vault';
const SNIPPETS = readdirSync(DIR).filter((name) => name.endsWith('.json') || name.endsWith('.toml'));

interface ServerEntry {
  type?: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * The `[mcp_servers.memvault]` table of a TOML file, read for the only value forms a snippet uses:
 * `key = "string"` and `key = ["string", …]` (TOML basic strings without escapes read as JSON).
 */
function tomlServer(text: string): ServerEntry {
  const table = /^\[mcp_servers\.memvault\]\n((?:[^[].*\n?)*)/m.exec(text)?.[1] ?? '';
  const values = Object.fromEntries(
    [...table.matchAll(/^(\w+) = (.+)$/gm)].map(([, key, value]) => [
      key,
      JSON.parse(value ?? '') as unknown,
    ]),
  );
  return values as unknown as ServerEntry;
}

function serverOf(name: string): ServerEntry {
  if (name.endsWith('.toml')) return tomlServer(readFileSync(join(DIR, name), 'utf8'));
  const parsed = JSON.parse(readFileSync(join(DIR, name), 'utf8')) as {
    mcpServers?: Record<string, ServerEntry>;
    servers?: Record<string, ServerEntry>;
  };
  const servers = name.startsWith('vscode') ? parsed.servers : parsed.mcpServers;
  const entry = servers?.['memvault'];
  if (!entry) throw new Error(`${name}: no memvault server`);
  return entry;
}

afterAll(cleanupVaults);

describe('examples/mcp client snippets', () => {
  it('has a snippet for Claude Desktop, Claude Code, Cursor, VS Code and Codex', () => {
    expect(SNIPPETS.sort()).toEqual([
      'claude-code.mcp.json',
      'claude-desktop.json',
      'codex.config.toml',
      'cursor.mcp.json',
      'vscode.mcp.json',
    ]);
  });

  it.each(SNIPPETS)(
    '%s starts mem mcp on the vault it names, which lists and answers the tools',
    async (name) => {
      const entry = serverOf(name);
      expect(entry.command).toBe('mem');
      expect(entry.args).toEqual(['mcp', '--vault', PLACEHOLDER]);
      if (entry.type !== undefined) expect(entry.type).toBe('stdio');
      const root = await makeVault({ 'profile/user.md': '# User\nLoves ramen.\n' });
      // `mem` is the package's bin, dist/cli/main.js: run it with this Node, as an installed shim would.
      const client = new Client({ name: 'memvault-example-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            join(REPO_ROOT, 'dist/cli/main.js'),
            ...entry.args.map((a) => (a === PLACEHOLDER ? root : a)),
          ],
          env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...entry.env },
          stderr: 'ignore',
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('memory_remember');
        const result = (await client.callTool({ name: 'memory_recall', arguments: { query: 'ramen' } })) as {
          content: { text: string }[];
        };
        expect(result.content[0]?.text).toContain('[[user#User]]');
        if (name === 'claude-desktop.json') {
          // The skill file names only tools the server has, and every tool that writes.
          const named = new Set(readFileSync(join(DIR, 'SKILL.md'), 'utf8').match(/memory_[a-z_]+/g));
          const names = tools.map((t) => t.name);
          expect([...named].filter((n) => !names.includes(n))).toEqual([]);
          for (const tool of tools.filter((t) => t.annotations?.readOnlyHint === false))
            expect(named, tool.name).toContain(tool.name);
        }
      } finally {
        await client.close();
      }
    },
  );

  it('has an agent skill whose frontmatter names it and says when to use it', () => {
    const skill = readFileSync(join(DIR, 'SKILL.md'), 'utf8');
    expect(skill).toMatch(/^---\nname: memvault-memory\ndescription: .+\n---\n/);
  });
});
