// Where an existing Obsidian vault keeps its daily notes, read from its `.obsidian/` folder, so
// `mem init` can write one episode note a day where Obsidian's Daily notes would, named as it would.
//
// Files read (all optional; Obsidian writes them as the settings change), in `.obsidian/` or the config
// folder the caller names (Obsidian can be told to use another, such as `.obsidian-mobile`):
// - `.obsidian/daily-notes.json`, the core Daily notes plugin: `{ folder, format, template, autorun }`;
//   a missing file or field is Obsidian's default (folder = vault root, format = YYYY-MM-DD, no template).
// - `.obsidian/core-plugins.json`, which core plugins are on: an array of enabled ids (older Obsidian)
//   or an object id → boolean (newer). Without the file, Obsidian's default set applies, which has
//   Daily notes on.
// - `.obsidian/community-plugins.json`, the array of enabled community plugin ids.
// - `.obsidian/plugins/periodic-notes/data.json`, Liam Cain's Periodic Notes, used when the plugin is
//   enabled and its daily notes are on; it then wins over the core plugin, as in Obsidian. Two shapes
//   (github.com/liamcain/obsidian-periodic-notes):
//     0.0.x (src/settings.ts): `{ daily: { enabled, folder, format, template }, weekly, monthly }`
//     1.x (src/types.ts, src/settings/index.ts, src/calendarSetManager.ts): `{ activeCalendarSet,
//       calendarSets: [{ id, ctime, day: { enabled, format, folder, templatePath, openAtStartup } }],
//       localeOverride: 'system-default' | 'zh-cn' | …, weekStart }`, the active set's `day`.
//
// The locale the names are written in: Obsidian's UI language lives in the app's localStorage, not in
// `.obsidian/`, so it cannot be read here. It is the caller's `locale` (the layout's) or `en`, unless
// Periodic Notes 1.x sets a `localeOverride`, which is what moment uses in Obsidian then.

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MemError } from '../../core/errors.js';
import { readRegularFile } from '../../core/regular-file.js';
import { dayFormatError, type MomentLocale } from '../../time/moment-format.js';
import { notePath, resolveInVault } from '../paths.js';

export const DEFAULT_DAILY_FORMAT = 'YYYY-MM-DD';

export interface DailyNoteSettings {
  /** Vault-relative folder without leading or trailing `/`; '' is the vault root */
  folder: string;
  /** moment.js format of a note's path below `folder` (may hold `/`), without `.md` */
  format: string;
  /** Vault path of the template note, `.md` added when the setting had none */
  template?: string;
  /** Which plugin's settings these are */
  source: 'daily-notes' | 'periodic-notes';
  /** Whether that plugin is on; false when neither is, and these are the core plugin's settings or defaults */
  enabled: boolean;
  /** Open today's note when Obsidian starts (daily-notes `autorun`, Periodic Notes `openAtStartup`) */
  autorun: boolean;
  /** Language of month and weekday names in `format` */
  locale: MomentLocale;
  /** Why `format` cannot name daily notes (dayFormatError), or undefined when it can */
  formatError?: string;
  /** Things the caller should tell the user: a plugin setting memvault does not follow, a missing template */
  notes: string[];
}

/** Obsidian's config folder, unless the vault overrides it (Settings → Files and links → Override config folder) */
export const DEFAULT_CONFIG_DIR = '.obsidian';

const filesIn = (dir: string) => ({
  dailyNotes: `${dir}/daily-notes.json`,
  corePlugins: `${dir}/core-plugins.json`,
  communityPlugins: `${dir}/community-plugins.json`,
  periodicNotes: `${dir}/plugins/periodic-notes/data.json`,
});
type Files = ReturnType<typeof filesIn>;

/** Settings files are a few hundred bytes; a larger one is refused rather than read whole. */
const MAX_SETTINGS_BYTES = 1 << 20;

type Json = Record<string, unknown>;

function invalid(file: string, why: string): MemError {
  return new MemError('INVALID_ARGUMENT', `${file}: ${why}`);
}

/** The parsed JSON of a vault file, or undefined when it does not exist. */
async function readJson(root: string, file: string): Promise<unknown> {
  let text: string;
  try {
    const bytes = await readRegularFile(join(root, file));
    if (bytes.length > MAX_SETTINGS_BYTES)
      throw invalid(file, `is ${bytes.length} bytes; a settings file is far smaller`);
    text = bytes.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (error instanceof MemError) throw error;
    throw invalid(file, `cannot be read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw invalid(file, `is not valid JSON (${(error as Error).message})`);
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function objectIn(file: string, value: unknown, what: string): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid(file, `${what} must be an object`);
  return value;
}

/** A string field; '' and whitespace count as unset (Obsidian's `format || DEFAULT`, `folder?.trim()`). */
function stringIn(file: string, object: Json, key: string, what = key): string | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw invalid(file, `${what} must be a string, not ${JSON.stringify(value)}`);
  return value.trim() === '' ? undefined : value.trim();
}

const boolIn = (object: Json, key: string) => object[key] === true;

/** Whether core plugin `id` is on, per core-plugins.json in either shape; on when the file is missing. */
async function corePluginEnabled(root: string, files: Files, id: string): Promise<boolean> {
  const list = await readJson(root, files.corePlugins);
  if (list === undefined) return true;
  if (Array.isArray(list)) return list.includes(id);
  if (isObject(list)) return list[id] === true;
  throw invalid(files.corePlugins, 'must be an array of plugin ids or an object of id → true/false');
}

async function communityPluginEnabled(root: string, files: Files, id: string): Promise<boolean> {
  const list = await readJson(root, files.communityPlugins);
  if (list === undefined) return false;
  if (!Array.isArray(list)) throw invalid(files.communityPlugins, 'must be an array of plugin ids');
  return list.includes(id);
}

interface RawDaily {
  file: string;
  enabled: boolean;
  folder?: string;
  format?: string;
  template?: string;
  autorun: boolean;
  locale?: MomentLocale;
}

/** Periodic Notes' daily settings in either shape, or undefined when its daily notes are off. */
function periodicDaily(files: Files, data: unknown, notes: string[]): RawDaily | undefined {
  const file = files.periodicNotes;
  const settings = objectIn(file, data, 'the file');
  if (!settings) return undefined;
  let day: Json | undefined;
  let templateKey = 'template';
  if (settings['calendarSets'] !== undefined) {
    const sets = settings['calendarSets'];
    if (!Array.isArray(sets)) throw invalid(file, 'calendarSets must be an array');
    const active = stringIn(file, settings, 'activeCalendarSet') ?? 'Default';
    const set = objectIn(
      file,
      sets.find((s) => isObject(s) && s['id'] === active) ?? sets[0],
      'a calendar set',
    );
    day = objectIn(file, set?.['day'], `calendar set ${JSON.stringify(active)}'s day`);
    templateKey = 'templatePath';
  } else {
    day = objectIn(file, settings['daily'], 'daily');
  }
  if (!day || !boolIn(day, 'enabled')) return undefined;
  const weekStart = settings['weekStart'];
  if (typeof weekStart === 'string' && weekStart !== 'locale')
    notes.push(
      `${file}: weekStart ${JSON.stringify(weekStart)} is not followed; weeks (w, e) start as the locale says`,
    );
  return {
    file,
    enabled: true,
    folder: stringIn(file, day, 'folder', 'daily folder'),
    format: stringIn(file, day, 'format', 'daily format'),
    template: stringIn(file, day, templateKey, `daily ${templateKey}`),
    autorun: boolIn(day, 'openAtStartup'),
    locale: localeOverride(file, settings['localeOverride'], notes),
  };
}

function localeOverride(file: string, value: unknown, notes: string[]): MomentLocale | undefined {
  if (typeof value !== 'string' || value === '' || value === 'system-default') return undefined;
  const lower = value.toLowerCase();
  if (lower === 'zh-cn' || lower === 'zh') return 'zh-cn';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  notes.push(
    `${file}: localeOverride ${JSON.stringify(value)} is not supported; names are written in English`,
  );
  return 'en';
}

async function coreDaily(root: string, files: Files): Promise<RawDaily> {
  const file = files.dailyNotes;
  const settings = objectIn(file, await readJson(root, file), 'the file') ?? {};
  return {
    file,
    enabled: await corePluginEnabled(root, files, 'daily-notes'),
    folder: stringIn(file, settings, 'folder'),
    format: stringIn(file, settings, 'format'),
    template: stringIn(file, settings, 'template'),
    autorun: boolIn(settings, 'autorun'),
  };
}

/** `folder` as a vault path: no leading or trailing `/`, '' for the root; refused when it leaves the vault. */
async function vaultFolder(root: string, file: string, folder: string | undefined): Promise<string> {
  const trimmed = (folder ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  try {
    return (await resolveInVault(root, trimmed, { allowDirs: true })).rel;
  } catch (error) {
    if (error instanceof MemError) throw new MemError(error.code, `${file}: folder ${error.message}`);
    throw error;
  }
}

async function vaultTemplate(root: string, raw: RawDaily, notes: string[]): Promise<string | undefined> {
  const trimmed = (raw.template ?? '').replace(/^\/+/, '');
  if (trimmed === '') return undefined;
  const path = notePath(trimmed);
  try {
    const { abs } = await resolveInVault(root, path);
    const exists = await stat(abs).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!exists) notes.push(`${raw.file}: template ${path} does not exist; notes start empty`);
  } catch (error) {
    if (!(error instanceof MemError)) throw error;
    // Outside the vault is refused; a name mem cannot read (a dot folder …) only loses the template.
    if (error.code === 'PATH_OUTSIDE_VAULT')
      throw new MemError(error.code, `${raw.file}: template ${error.message}`);
    notes.push(`${raw.file}: template ${error.message}; notes start empty`);
    return undefined;
  }
  return path;
}

/**
 * The vault's daily-note settings, or undefined when `root` has no `.obsidian/` folder (not an
 * Obsidian vault). Malformed JSON or a field of the wrong type: INVALID_ARGUMENT naming the file; a
 * folder or template outside the vault: PATH_OUTSIDE_VAULT (or INVALID_PATH) naming the file.
 */
export async function readDailyNoteSettings(
  root: string,
  options: {
    /** The layout's language for month and weekday names (Obsidian's own is not in its files) */
    locale?: MomentLocale;
    /** The vault's config folder when Obsidian is told to use another (`.obsidian-mobile`); default `.obsidian` */
    configDir?: string;
  } = {},
): Promise<DailyNoteSettings | undefined> {
  const configDir = options.configDir ?? DEFAULT_CONFIG_DIR;
  // Obsidian's rule for the override: one folder name starting with a dot.
  if (!/^\.[^/\\]+$/.test(configDir) || configDir === '..')
    throw new MemError(
      'INVALID_ARGUMENT',
      `config folder ${JSON.stringify(configDir)}: must be one folder name starting with "."`,
    );
  const files = filesIn(configDir);
  const hasObsidian = await stat(join(root, configDir)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!hasObsidian) return undefined;
  const notes: string[] = [];
  let raw: RawDaily | undefined;
  if (await communityPluginEnabled(root, files, 'periodic-notes'))
    raw = periodicDaily(files, await readJson(root, files.periodicNotes), notes);
  raw ??= await coreDaily(root, files);
  if (!raw.enabled)
    notes.push(
      'neither Daily notes nor Periodic Notes is enabled in Obsidian; using the Daily notes settings',
    );
  const locale = raw.locale ?? options.locale ?? 'en';
  const format = raw.format ?? DEFAULT_DAILY_FORMAT;
  const settings: DailyNoteSettings = {
    folder: await vaultFolder(root, raw.file, raw.folder),
    format,
    source: raw.file === files.periodicNotes ? 'periodic-notes' : 'daily-notes',
    enabled: raw.enabled,
    autorun: raw.autorun,
    locale,
    notes,
  };
  const template = await vaultTemplate(root, raw, notes);
  if (template !== undefined) settings.template = template;
  const formatError = dayFormatError(format, locale);
  if (formatError !== undefined) settings.formatError = `${raw.file}: ${formatError}`;
  return settings;
}
