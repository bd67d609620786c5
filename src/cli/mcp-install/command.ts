import { Argument, type Command, Option } from 'commander';
import type { GlobalOptions } from '../context.js';
import type { CliIO } from '../io.js';
import { CLIENT_IDS, type ClientId } from './clients.js';

/** `mem mcp install <client>`: puts the memvault server into an MCP client's own config file. */
export function mcpInstallCommand(mcp: Command, io: CliIO): void {
  mcp
    .command('install')
    .description(
      "add memvault to an MCP client's config file (merged in, the old file kept as .bak), or print its snippet",
    )
    .addArgument(new Argument('<client>', 'the client').choices(CLIENT_IDS))
    .option('--print', 'print the snippet for the client and write nothing')
    .option('--dry-run', 'show the change to the config file and write nothing')
    .addOption(
      new Option(
        '--scope <scope>',
        'user (every project, the default) or project (the working directory)',
      ).choices(['user', 'project']),
    )
    .option('--force', 'replace a memvault entry that starts the server differently')
    .action(async (id: ClientId, options: InstallOptions, command: Command) => {
      // Loaded when it runs: the diff of --dry-run is no part of `mem --help`.
      const { installMcpClient } = await import('./install.js');
      await installMcpClient(
        id,
        { ...options, vault: (command.optsWithGlobals() as GlobalOptions).vault },
        io,
      );
    });
}

interface InstallOptions {
  print?: boolean;
  dryRun?: boolean;
  scope?: string;
  force?: boolean;
}
