import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { CONFIG_FILE } from '../core/config.js';
import { MemError } from '../core/errors.js';
import { readRegularText } from '../core/regular-file.js';
import { TEMPLATES_DIR } from '../core/templates-dir.js';
import { commitPaths } from '../git/commit-paths.js';
import { gitEnv, gitRoot, isGitAvailable } from '../git/run-git.js';

const run = promisify(execFile);

export interface InitResult {
  root: string;
  created: string[];
  gitInitialized: boolean;
}

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const abs = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(abs, base)));
    else out.push(relative(base, abs).split('\\').join('/'));
  }
  return out.sort();
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Creates a vault from `templates/vault/`: the layered folders, `mem.config.json` (with this
 * machine's time zone), `.gitignore`, and a git repository when the folder is not in one yet.
 * Refuses before writing anything when a file it would create already exists.
 */
export interface InitVaultOptions {
  git?: boolean;
  /** Replaces the template's `mem.config.json` (`mem serve --vaults --template`); the zone stays this machine's when it names none */
  config?: Record<string, unknown>;
  /** More files (vault path -> bytes), written over the template's and part of the first commit */
  files?: ReadonlyMap<string, Buffer>;
}

export async function initVault(root: string, options: InitVaultOptions = {}): Promise<InitResult> {
  const source = join(TEMPLATES_DIR, 'vault');
  // npm drops `.gitignore` from published packages, so the template ships it as `gitignore`.
  const files = (await listFiles(source)).map((f) => (f === 'gitignore' ? '.gitignore' : f));
  const clashes: string[] = [];
  for (const file of files) if (await exists(join(root, file))) clashes.push(file);
  if (clashes.length > 0) {
    throw new MemError('EXISTS', `${root} already has ${clashes.join(', ')}; nothing was written`);
  }
  await mkdir(root, { recursive: true });
  await cp(source, root, { recursive: true, errorOnExist: true, force: false });
  await rename(join(root, 'gitignore'), join(root, '.gitignore'));
  const configPath = join(root, CONFIG_FILE);
  const config = options.config
    ? { ...options.config }
    : (JSON.parse(await readRegularText(configPath)) as Record<string, unknown>);
  config['timezone'] ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  for (const [path, bytes] of options.files ?? []) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), bytes);
    if (!files.includes(path)) files.push(path);
  }
  let gitInitialized = false;
  if (options.git !== false && (await isGitAvailable()) && !(await gitRoot(root))) {
    await run('git', ['init', '-q'], { cwd: root, env: gitEnv() });
    gitInitialized = true;
    // The vault starts as one commit, so `mem history` and `mem undo` have a base to work from.
    await commitPaths(root, files, 'mem: init vault');
  }
  return { root, created: files, gitInitialized };
}
