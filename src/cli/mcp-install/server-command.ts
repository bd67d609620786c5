import { constants } from 'node:fs';
import { access, realpath } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { MEM_ENTRY } from '../mem-entry.js';
import type { ServerCommand } from './clients.js';

/**
 * How a client should start `mem mcp --vault <vault>`. `mem`, as the examples say, when the first
 * `mem` on PATH is this very install (its link resolves to this dist/cli/main.js): it then follows
 * upgrades. Otherwise this Node's absolute path and this install's main.js, which work even from a
 * client with a short PATH. On Windows always the latter: npm's `mem` there is a `.cmd` shim, and
 * clients start servers without a shell.
 */
export async function serverCommand(
  vault: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<ServerCommand & { via: 'path' | 'node' }> {
  const args = ['mcp', '--vault', vault];
  if (platform !== 'win32' && (await memOnPathIsThis(env['PATH'] ?? ''))) {
    return { command: 'mem', args, via: 'path' };
  }
  return { command: process.execPath, args: [MEM_ENTRY, ...args], via: 'node' };
}

async function memOnPathIsThis(pathList: string): Promise<boolean> {
  const self = await realpath(MEM_ENTRY).catch(() => undefined);
  if (!self) return false;
  for (const dir of pathList.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'mem');
    const executable = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!executable) continue;
    // The first `mem` on PATH is the one a client would start: it must be this one.
    return (await realpath(candidate).catch(() => undefined)) === self;
  }
  return false;
}
