// `mem init` in a folder that is already an Obsidian vault: the vault stays as it is. Its days are
// kept where its Daily notes (or Periodic Notes) setting puts them, in its date format and from its
// template; mem's own layers go to one new folder that collides with none of the person's; the rest
// of the vault is indexed and linked as it is and never written unless a command names it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { TEMPLATES_DIR } from '../../core/templates-dir.js';
import { type DailyNoteSettings, readDailyNoteSettings } from '../../vault/links/obsidian-settings.js';

/** The folder names tried, in order, for mem's layers in an adopted vault. */
const HOME_CANDIDATES = ['memory', 'memvault', 'memvault-memory'];

/** The heading mem's entries go under in a daily note the person also writes. */
export const ADOPTED_HEADING = 'Memory';

export interface Adoption {
  /** Where the settings came from */
  daily: DailyNoteSettings;
  /** The folder that holds mem's layers */
  home: string;
  /** mem.config.json's `layout` */
  layout: Record<string, unknown>;
  /** The files mem adds (vault path → text): its persona and user notes, under `home` */
  files: Map<string, string>;
}

/**
 * What adopting the Obsidian vault at `root` writes, or undefined when `root` is no Obsidian vault
 * (it has no `.obsidian/` folder). Nothing is written here.
 */
export async function planAdoption(root: string): Promise<Adoption | undefined> {
  const daily = await readDailyNoteSettings(root);
  if (!daily) return undefined;
  if (daily.formatError)
    throw new MemError(
      'INVALID_ARGUMENT',
      `${daily.formatError}; mem cannot tell which day a note is by it. Change the daily notes' date format in Obsidian, or run mem init --no-adopt; nothing was written`,
    );
  // Folder names compare without case: macOS and Windows keep `Memory` and `memory` as one. A
  // folder Obsidian's settings name is the person's too, made or not yet (days, templates, new
  // notes, attachments).
  const named = [daily.folder, daily.template ?? '', ...(await settingFolders(root))];
  const taken = new Set(
    [...(await readdir(root)), ...named.map((path) => path.split('/')[0] ?? '')]
      .filter((name) => name !== '')
      .map((name) => name.toLowerCase()),
  );
  let home = HOME_CANDIDATES.find((name) => !taken.has(name));
  for (let n = 2; home === undefined; n++) if (!taken.has(`memvault-${n}`)) home = `memvault-${n}`;
  const layout: Record<string, unknown> = {
    persona: `${home}/persona`,
    profile: `${home}/profile`,
    episodes: `${home}/episodes`,
    insights: `${home}/insights`,
    archive: `${home}/archive`,
    daily: {
      folder: daily.folder,
      format: daily.format,
      ...(daily.template ? { template: daily.template } : {}),
      heading: ADOPTED_HEADING,
      locale: daily.locale,
    },
  };
  const files = new Map<string, string>();
  for (const [from, to] of [
    ['persona/identity.md', `${home}/persona/identity.md`],
    ['profile/user.md', `${home}/profile/user.md`],
  ] as const) {
    // The template's own mentions of its folders (`persona/voice.md`) name this vault's.
    const text = await readFile(join(TEMPLATES_DIR, 'vault', from), 'utf8');
    files.set(to, text.replace(/(?<![\w/])(persona|profile)\//g, `${home}/$1/`));
  }
  return { daily, home, layout, files };
}

/** Folders named in Obsidian's own settings: the Templates folder, where new notes and attachments go. */
async function settingFolders(root: string): Promise<string[]> {
  const read = async (file: string, keys: string[]): Promise<string[]> => {
    try {
      // Regular files only: a FIFO under the name would make adopting wait for ever.
      const data = JSON.parse(await readRegularText(join(root, '.obsidian', file))) as Record<
        string,
        unknown
      >;
      return keys.map((key) => data[key]).filter((value): value is string => typeof value === 'string');
    } catch {
      return []; // a missing or unreadable settings file names nothing
    }
  };
  const folders = [
    ...(await read('templates.json', ['folder'])),
    ...(await read('app.json', ['newFileFolderPath', 'attachmentFolderPath'])),
  ];
  return folders.map((f) => f.replace(/^\.?\/+/, '').trim());
}
