import type { Command } from 'commander';
import { openFromCli } from '../context.js';
import type { CliIO } from '../io.js';
import { errorText, waitForStop } from './watch.js';

export function mcpCommand(program: Command, io: CliIO): void {
  program
    .command('mcp')
    .description(
      'a stdio MCP server: recall, compile, read and list notes, remember, create, edit frontmatter, move and forget (archive)',
    )
    .action(async (_options: unknown, command: Command) => {
      // stdout carries the protocol: every notice goes to stderr.
      const vault = await openFromCli(command, io, { track: true });
      await vault.watch({ onError: (error) => io.stderr(`mem: ${errorText(error)}\n`) });
      const { serveMcp } = await import('../../serve/mcp.js');
      const server = await serveMcp(vault);
      await Promise.race([server.closed, waitForStop()]);
      await server.close();
      await vault.close();
    });
}
