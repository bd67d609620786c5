import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT } from './make-vault.js';

/** Starts the built `mem mcp` on `root` and connects an MCP client to it over stdio. */
export async function connectMcp(root: string): Promise<Client> {
  const client = new Client({ name: 'memvault-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO_ROOT, 'dist/cli/main.js'), 'mcp', '--vault', root],
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
      stderr: 'ignore',
    }),
  );
  return client;
}
