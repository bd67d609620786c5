import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { CONFIG_FILE, loadConfig, resolveConfig } from '../../core/config/config.js';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { TEMPLATES_DIR } from '../../core/templates-dir.js';
import { commitPaths } from '../../git/commit-paths.js';
import { gitEnv, gitRoot, isGitAvailable } from '../../git/run-git.js';
import { layoutOf } from '../../vault/layout.js';
import { installMergeDriver } from '../sync/merge-driver.js';
import { type Adoption, planAdoption } from './adopt-vault.js';

const run = promisify(execFile);

export interface InitResult {
  root: string;
  created: string[];
  gitInitialized: boolean;
  /** Whether the files created were committed (only they: a person's own files never are) */
  committed: boolean;
  /** Why they were not committed */
  commitReason?: string;
  /** Set when `root` was an Obsidian vault, adopted as it is */
  adopted?: {
    /** The folder that holds mem's layers */
    home: string;
    /** Where the days go, and which setting said so */
    daily: { folder: string; format: string; template?: string; source: string; enabled: boolean };
    /** What was noticed in the settings (a plugin off, a setting missing) */
    notes: string[];
  };
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

// lstat: a symlink (even a dangling one) where a file would go is a clash, not a free name.
const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

export interface InitVaultOptions {
  git?: boolean;
  /** Replaces the template's `mem.config.json` (`mem serve --vaults --template`); the zone stays this machine's when it names none */
  config?: Record<string, unknown>;
  /** More files (vault path -> bytes), written over the template's and part of the first commit */
  files?: ReadonlyMap<string, Buffer>;
  /** Adopt a folder holding `.obsidian/` as the Obsidian vault it is (default: true) */
  adopt?: boolean;
}

/**
 * Creates a vault from `templates/vault/`: the layered folders, `mem.config.json` (with this
 * machine's time zone), `.gitignore`; or, in a folder with `.obsidian/`, adopts that Obsidian vault
 * as it is (see adopt-vault.ts). Refuses before writing anything when a file it would create
 * already exists. The files it created are committed, and only they; a git repository is made
 * when the folder is in none.
 */
export async function initVault(root: string, options: InitVaultOptions = {}): Promise<InitResult> {
  const adoption = options.adopt !== false && !options.config ? await planAdoption(root) : undefined;
  if (adoption) return adoptVault(root, adoption, options);
  const source = join(TEMPLATES_DIR, 'vault');
  // npm drops `.gitignore` from published packages, so the template ships it as `gitignore`.
  const files = (await listFiles(source)).map((f) => (f === 'gitignore' ? '.gitignore' : f));
  await refuseClashes(root, files);
  await mkdir(root, { recursive: true });
  await cp(source, root, { recursive: true, errorOnExist: true, force: false });
  await rename(join(root, 'gitignore'), join(root, '.gitignore'));
  const configPath = join(root, CONFIG_FILE);
  const config = options.config
    ? { ...options.config }
    : (JSON.parse(await readRegularText(configPath)) as Record<string, unknown>);
  config['timezone'] ??= systemZone();
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  for (const [path, bytes] of options.files ?? []) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), bytes);
    if (!files.includes(path)) files.push(path);
  }
  return { root, created: files, ...(await commitCreated(root, files, 'mem: init vault', options)) };
}

const systemZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Refuses before writing anything when a file init would create already exists. */
async function refuseClashes(root: string, files: string[]): Promise<void> {
  const clashes: string[] = [];
  for (const file of files) if (await exists(join(root, file))) clashes.push(file);
  if (clashes.length > 0) {
    throw new MemError('EXISTS', `${root} already has ${clashes.join(', ')}; nothing was written`);
  }
}

/**
 * An Obsidian vault as it is: mem.config.json with the layout its Daily notes settings give, and
 * mem's persona and user notes in a folder of their own. Nothing of the person's is moved or changed.
 */
async function adoptVault(root: string, adoption: Adoption, options: InitVaultOptions): Promise<InitResult> {
  const files = [CONFIG_FILE, ...adoption.files.keys()];
  await refuseClashes(root, files);
  const template = JSON.parse(await readRegularText(join(TEMPLATES_DIR, 'vault', CONFIG_FILE))) as Record<
    string,
    unknown
  >;
  const config = { timezone: systemZone(), ...template, layout: adoption.layout };
  // Checked before anything is written: a date format or template mem cannot use stops here.
  layoutOf(resolveConfig(config));
  // The config last: a vault is a vault once it has one. A failure on the way (a full disk, a
  // name taken meanwhile) takes back what was written, so a rerun starts from the same folder.
  try {
    for (const [path, text] of adoption.files) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text, { flag: 'wx' });
    }
    await writeFile(join(root, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx' });
  } catch (error) {
    // The home folder was free (planAdoption chose a name nothing has): all in it is mem's.
    await rm(join(root, adoption.home), { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOSPC') throw error;
    throw new MemError(
      code === 'EEXIST' ? 'EXISTS' : 'NO_SPACE',
      `${root}: ${(error as Error).message}; nothing was written`,
    );
  }
  const { folder, format, template: dailyTemplate, source, enabled } = adoption.daily;
  return {
    root,
    created: files,
    ...(await commitCreated(root, files, 'mem: adopt this Obsidian vault as memory', options)),
    adopted: {
      home: adoption.home,
      daily: { folder, format, ...(dailyTemplate ? { template: dailyTemplate } : {}), source, enabled },
      notes: adoption.daily.notes,
    },
  };
}

/**
 * Commits the files init created, and only them (the person's own files, staged or not, stay as
 * they are), making the git repository first when the folder is in none.
 */
async function commitCreated(
  root: string,
  files: string[],
  message: string,
  options: InitVaultOptions,
): Promise<Pick<InitResult, 'gitInitialized' | 'committed' | 'commitReason'>> {
  if (options.git === false)
    return { gitInitialized: false, committed: false, commitReason: 'asked not to (--no-git)' };
  if (!(await isGitAvailable()))
    return { gitInitialized: false, committed: false, commitReason: 'git is not installed' };
  let repo = await gitRoot(root);
  let gitInitialized = false;
  if (!repo) {
    await run('git', ['init', '-q'], { cwd: root, env: gitEnv() });
    gitInitialized = true;
    repo = root;
  }
  // Day notes merge entry by entry on any git pull (the driver mem sync also uses).
  for (const path of await installMergeDriver(root, await loadConfig(root)))
    if (!files.includes(path)) files.push(path);
  const prefix = relative(await realpath(repo), await realpath(root))
    .split(sep)
    .join('/');
  const paths = files.map((f) => (prefix ? `${prefix}/${f}` : f));
  // The vault starts as one commit, so `mem history` and `mem undo` have a base to work from.
  const result = await commitPaths(repo, paths, message);
  return {
    gitInitialized,
    committed: result.committed,
    ...(result.committed ? {} : { commitReason: result.reason }),
  };
}
