import type { Command } from 'commander';
import type { Vault } from '../internal.js';
import type { CliIO } from './io.js';
import { library } from './library.js';

export interface GlobalOptions {
  vault?: string;
}

/**
 * Commands that change the vault. In a folder without mem.config.json they are refused before the
 * folder is read (they would be refused after it anyway, and `--vault /usr` took 95 s to get there);
 * every other command reads the folder as it is, saying so first.
 */
const WRITING_COMMANDS = new Set(['remember', 'ingest', 'import', 'note', 'mv', 'forget', 'undo', 'reflect']);

/** The command's name under `mem` (`note` for `mem note set`). */
function topName(command: Command): string {
  let top = command;
  while (top.parent?.parent) top = top.parent;
  return top.name();
}

/** Opens the vault named by `--vault`, `MEM_VAULT` or the folders above the working directory. */
export async function openFromCli(
  command: Command,
  io: CliIO,
  extra: {
    rebuild?: boolean;
    requireConfig?: boolean;
    onProgress?: (read: number, total: number) => void;
    scan?: 'now' | 'background';
    track?: boolean;
    /** `background` for a long-lived process (serve, daemon, mcp): see OpenVaultOptions */
    embedSections?: 'read' | 'background';
  } = {},
): Promise<Vault> {
  const globals = command.optsWithGlobals() as GlobalOptions;
  const { openVault } = await library();
  return openVault({
    path: globals.vault,
    cwd: io.cwd,
    env: io.env,
    rebuild: extra.rebuild,
    requireConfig: extra.requireConfig ?? WRITING_COMMANDS.has(topName(command)),
    onProgress: extra.onProgress,
    scan: extra.scan,
    track: extra.track,
    embedSections: extra.embedSections,
    onNotice: (message) => io.stderr(`${message}\n`),
  });
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
