import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { MemError } from './errors.js';
import { CONFIG_FILE } from './vault-files.js';

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The vault a command works on: `explicit` (from `--vault`), else `MEM_VAULT`, else the nearest
 * folder upward from `cwd` that holds `mem.config.json`.
 */
export async function findVault(
  explicit: string | undefined,
  cwd = process.cwd(),
  env = process.env,
): Promise<string> {
  const given = explicit ?? env['MEM_VAULT'];
  if (given) {
    const root = resolve(cwd, given);
    if (!(await isDir(root))) throw new MemError('NO_VAULT', `vault folder not found: ${root}`);
    return root;
  }
  let dir = resolve(cwd);
  for (;;) {
    if (await exists(join(dir, CONFIG_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new MemError(
    'NO_VAULT',
    `no vault here: no ${CONFIG_FILE} in ${resolve(cwd)} or above. Use --vault DIR, set MEM_VAULT, or run \`mem init\``,
  );
}
