import type { Command } from 'commander';
import { openFromCli } from '../context.js';
import type { CliIO } from '../io.js';
import { mcpInstallCommand } from '../mcp-install/command.js';
import { parsePositiveInt } from '../parse-options.js';
import { errorText, waitForStop } from './watch.js';

interface McpCliOptions {
  http?: boolean;
  port: string;
  host: string;
  token?: string;
  allowHost: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function mcpCommand(program: Command, io: CliIO): void {
  const mcp = program.command('mcp');
  mcp
    .description(
      'an MCP server (stdio, or streamable HTTP with --http): recall, compile, read and list notes, remember, create, edit frontmatter, move and forget (archive)',
    )
    .option(
      '--http',
      "serve streamable HTTP at /mcp instead of stdio, with mem serve's token and Host/Origin rules",
    )
    .option('--port <n>', 'with --http: TCP port (0 picks a free one)', '7412')
    .option(
      '--host <host>',
      'with --http: interface to bind; anything but loopback needs a token',
      '127.0.0.1',
    )
    .option('--token <token>', 'with --http: require "Authorization: Bearer <token>" (default: MEM_TOKEN)')
    .option(
      '--allow-host <name>',
      'with --http: also answer requests whose Host is this name (repeatable)',
      collect,
      [],
    )
    .action(async (options: McpCliOptions, command: Command) => {
      // A server's heap stays near its live data (serve/server-heap.ts).
      (await import('../../serve/server-heap.js')).boundHeapGrowth();
      // stdout carries the protocol: every notice goes to stderr.
      const vault = await openFromCli(command, io, { track: true, embedSections: 'background' });
      await vault.watch({ onError: (error) => io.stderr(`mem: ${errorText(error)}\n`) });
      if (options.http) {
        const { serveMcpHttp } = await import('../../serve/mcp/mcp-http.js');
        const stop = waitForStop();
        const server = await serveMcpHttp(vault, {
          port: options.port === '0' ? 0 : parsePositiveInt(options.port, '--port'),
          host: options.host,
          token: options.token ?? io.env['MEM_TOKEN'],
          allowedHosts: [...vault.config.serve.allowedHosts, ...options.allowHost],
          allowedOrigins: vault.config.serve.allowedOrigins,
          onError: (error) => io.stderr(`mem: ${errorText(error)}\n`),
        }).catch(async (error: unknown) => {
          await vault.close();
          throw error;
        });
        io.stderr(`mem: MCP over streamable HTTP at ${server.url}\n`);
        await stop;
        await server.close();
        await vault.close();
        return;
      }
      const { serveMcp } = await import('../../serve/mcp/mcp.js');
      const server = await serveMcp(vault);
      await Promise.race([server.closed, waitForStop()]);
      await server.close();
      await vault.close();
    });
  mcpInstallCommand(mcp, io);
}
