import type { Command } from 'commander';
import type { Vault } from '../index.js';
import type { CliIO } from './io.js';
import { library } from './library.js';

export interface GlobalOptions {
  vault?: string;
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
  } = {},
): Promise<Vault> {
  const globals = command.optsWithGlobals() as GlobalOptions;
  const { openVault } = await library();
  return openVault({
    path: globals.vault,
    cwd: io.cwd,
    env: io.env,
    rebuild: extra.rebuild,
    requireConfig: extra.requireConfig,
    onProgress: extra.onProgress,
    scan: extra.scan,
    track: extra.track,
    onNotice: (message) => io.stderr(`${message}\n`),
  });
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
