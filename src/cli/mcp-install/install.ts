import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { MemError } from '../../core/errors.js';
import { findVault } from '../../core/find-vault.js';
import { CONFIG_FILE } from '../../core/vault-files.js';
import type { CliIO } from '../io.js';
import { lineDiff } from '../line-diff.js';
import { CLIENTS, type ClientId, type Scope, scopesOf } from './clients.js';
import { jsonSnippet, mergeJson } from './json-config.js';
import type { MergeResult } from './merge-result.js';
import { readConfigFile, replaceConfigFile } from './replace-file.js';
import { serverCommand } from './server-command.js';
import { mergeToml, tomlTable } from './toml-config.js';

export interface InstallOptions {
  print?: boolean;
  dryRun?: boolean;
  scope?: string;
  force?: boolean;
  vault?: string;
}

/**
 * `mem mcp install <client>`: the client's snippet (`--print`), the change to its config file
 * (`--dry-run`), or that change made: merged into the file, the old one kept as `.bak`, written
 * whole or not at all. A second run finds the entry there and changes nothing.
 */
export async function installMcpClient(id: ClientId, options: InstallOptions, io: CliIO): Promise<void> {
  const client = CLIENTS[id];
  const scope = (options.scope ?? 'user') as Scope;
  if (!scopesOf(client).includes(scope)) {
    const has = scopesOf(client).join(' or ');
    throw new MemError('USAGE', `--scope ${scope}: ${client.label} has a ${has} config only`);
  }
  const vault = await vaultFolder(options.vault, io, Boolean(options.print));
  const server = await serverCommand(vault, io.env);
  const entry = client.entry(server);
  if (options.print) {
    io.stdout(
      client.format === 'json'
        ? jsonSnippet(client, entry)
        : `${client.where?.[scope]}\n${tomlTable(server)}`,
    );
    return;
  }
  if (server.via === 'node' && /[\\/]_npx[\\/]/.test(server.args[0] ?? '')) {
    io.stderr(
      `mem: warning: this mem runs from npx's cache, which npm may clear; install it from its clone ('npm install -g .' there, see the README's Install) and run this again\n`,
    );
  }
  const path = client.paths[scope]?.({ env: io.env, cwd: io.cwd, platform: process.platform }) ?? '';
  const file = await readConfigFile(path);
  const mergeOptions = { force: Boolean(options.force), path };
  const result: MergeResult =
    client.format === 'json'
      ? mergeJson(file.text, client, entry, mergeOptions)
      : mergeToml(file.text, server, mergeOptions);
  if (result.kind === 'unchanged') {
    io.stdout(`memvault is already installed in ${client.label}'s config ${path}; nothing changed\n`);
    return;
  }
  if (result.kind === 'conflict') {
    throw new MemError(
      'CONFLICT',
      `${path} already has a different memvault server (${result.existing.trim()}); nothing changed: --force replaces it`,
    );
  }
  const verb = result.replaced ? 'replace' : 'add';
  if (options.dryRun) {
    io.stdout(`would ${verb} memvault in ${path}:\n${lineDiff(file.text, result.text)}\n`);
    return;
  }
  const { backup } = await replaceConfigFile(file, result.text);
  io.stdout(
    `${verb === 'add' ? 'added' : 'replaced'} memvault in ${client.label}'s config ${path}` +
      `${backup ? ` (the old file is ${backup})` : ''}\n` +
      `it starts: ${[server.command, ...server.args].join(' ')}\n` +
      `restart ${client.label} (or reload its MCP servers) to use it\n`,
  );
}

/**
 * The vault to serve, as an absolute path: `--vault`, MEM_VAULT, or the vault around the working
 * directory. An install needs a real vault; `--print` takes any folder named (even a placeholder).
 */
async function vaultFolder(explicit: string | undefined, io: CliIO, print: boolean): Promise<string> {
  const given = explicit ?? io.env['MEM_VAULT'];
  if (print && given) return resolve(io.cwd, given);
  const root = await findVault(given, io.cwd, io.env);
  const isVault = await stat(join(root, CONFIG_FILE)).then(
    () => true,
    () => false,
  );
  if (!isVault) {
    throw new MemError(
      'NO_VAULT',
      `not a vault: ${root} has no ${CONFIG_FILE} (run \`mem init ${root}\` first)`,
    );
  }
  return root;
}
