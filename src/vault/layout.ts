// Where each layer lives in this vault: the one answer to "which folder", "which layer is this
// note" and "which file is this day's note". A vault made by `mem init` uses the default layout
// (persona/, profile/, episodes/daily/YYYY-MM-DD.md, insights/); an Obsidian vault adopted as it is
// keeps its days where its Daily notes setting puts them, in its date format (`layout.*` config).
import { defaultConfig, type MemConfig } from '../core/config/config.js';
import { expectString, MemError } from '../core/errors.js';
import type { Layer } from '../core/types.js';
import { dayFormatError, formatDay, parseDayByFormat } from '../time/moment-format.js';

export type LayerFolder = 'persona' | 'profile' | 'episodes' | 'insights' | 'archive';

export interface VaultLayout {
  /** Vault folder of each layer, without slashes at either end */
  readonly folders: Readonly<Record<LayerFolder, string>>;
  /** Where and under which name each day's episode note lives */
  readonly daily: Readonly<MemConfig['layout']['daily']>;
  /** Same key, same layout: a cache built under another layout is rebuilt */
  readonly key: string;
}

const LAYER_FOLDERS: readonly LayerFolder[] = ['persona', 'profile', 'episodes', 'insights', 'archive'];

const built = new WeakMap<MemConfig['layout'], VaultLayout>();

/**
 * The layout a config describes. Refuses (INVALID_CONFIG) a date format that cannot name one day
 * and two layers in one folder: either would file a note under the wrong day or the wrong layer.
 */
export function layoutOf(config: Pick<MemConfig, 'layout'>): VaultLayout {
  const cached = built.get(config.layout);
  if (cached) return cached;
  const { daily } = config.layout;
  const formatError = dayFormatError(daily.format);
  if (formatError)
    throw new MemError('INVALID_CONFIG', `mem.config.json: layout.daily.format ${formatError}`);
  const folders = Object.fromEntries(LAYER_FOLDERS.map((layer) => [layer, config.layout[layer]])) as Record<
    LayerFolder,
    string
  >;
  const seen = new Map<string, LayerFolder>();
  for (const layer of LAYER_FOLDERS) {
    const other = seen.get(folders[layer].toLowerCase());
    if (other)
      throw new MemError(
        'INVALID_CONFIG',
        `mem.config.json: layout.${layer} and layout.${other} are both "${folders[layer]}"; each layer needs its own folder`,
      );
    seen.set(folders[layer].toLowerCase(), layer);
  }
  const layout: VaultLayout = { folders, daily: { ...daily }, key: JSON.stringify([folders, daily]) };
  built.set(config.layout, layout);
  return layout;
}

export const DEFAULT_LAYOUT: VaultLayout = layoutOf(defaultConfig());

/** Whether `path` lies inside `folder` (`""` is the vault root, which holds everything). */
const inFolder = (path: string, folder: string) => folder === '' || path.startsWith(`${folder}/`);

/** The part of `path` after `folder/`. */
const underFolder = (path: string, folder: string) => (folder === '' ? path : path.slice(folder.length + 1));

/** The day (`YYYY-MM-DD`) whose daily note `path` is under this layout; undefined for any other path. */
export function dayOfPath(path: string, layout: VaultLayout = DEFAULT_LAYOUT): string | undefined {
  const { folder, format, locale } = layout.daily;
  if (!path.endsWith('.md') || !inFolder(path, folder)) return undefined;
  const day = parseDayByFormat(underFolder(path, folder).slice(0, -3), format, locale);
  if (!day) return undefined;
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(day.year, 4)}-${pad(day.month, 2)}-${pad(day.day, 2)}`;
}

/** The vault path of a day's episode note (`day` is `YYYY-MM-DD`). */
export function dailyNotePath(day: string, layout: VaultLayout = DEFAULT_LAYOUT): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const { folder, format, locale } = layout.daily;
  const name = `${formatDay({ year, month, day: date }, format, locale)}.md`;
  return folder === '' ? name : `${folder}/${name}`;
}

/**
 * The layer of a note: `episodes` for a daily note of the layout, else the layer whose folder holds
 * it (the deepest, when layer folders nest), else `other`: a person's own notes are memory too,
 * indexed and linked as they are.
 */
export function layerOf(path: string, layout: VaultLayout = DEFAULT_LAYOUT): Layer {
  if (dayOfPath(path, layout) !== undefined) return 'episodes';
  let layer: Layer = 'other';
  let depth = -1;
  for (const name of LAYER_FOLDERS) {
    const folder = layout.folders[name];
    if (folder.length > depth && path.startsWith(`${folder}/`)) {
      layer = name;
      depth = folder.length;
    }
  }
  return layer;
}

/** The user's own profile note, which compile puts first among what it knows of the user. */
export const userNotePath = (layout: VaultLayout = DEFAULT_LAYOUT) => `${layout.folders.profile}/user.md`;

/** The note of open promises (`mem reflect --offline` keeps it; compile shows what is due). */
export const commitmentsPath = (layout: VaultLayout = DEFAULT_LAYOUT) =>
  `${layout.folders.profile}/commitments.md`;

/** A layer's folder with a trailing slash, for prompts and messages (`insights/`). */
export const folderOf = (layer: LayerFolder, layout: VaultLayout = DEFAULT_LAYOUT) =>
  `${layout.folders[layer]}/`;

/**
 * Text written for the default layout (a prompt, a schema's descriptions) with its folder names
 * as this vault's: `profile/user.md` → `memory/profile/user.md`, `episodes/daily/2026-03-02.md` →
 * that day's note, `episodes/daily/YYYY-MM-DD.md` → the daily folder and format. A model told the
 * default folders would write notes that validation then refuses as outside their layer.
 */
export function inLayout(text: string, layout: VaultLayout = DEFAULT_LAYOUT): string {
  expectString(text, 'the text');
  if (layout.key === DEFAULT_LAYOUT.key) return text;
  const { folder, format } = layout.daily;
  return text.replace(
    /(?<![\w/.-])(?:episodes\/daily\/(?:(\d{4}-\d{2}-\d{2})|YYYY-MM-DD)\.md|(persona|profile|episodes|insights|archive)\/)|(?<=\[\[)(\d{4}-\d{2}-\d{2})(?=[#|\]])/g,
    (_match, day: string | undefined, layer: LayerFolder | undefined, cited: string | undefined) => {
      if (layer) return `${layout.folders[layer]}/`;
      if (day) return dailyNotePath(day, layout);
      // A citation of a day (`[[2026-03-02#^e4]]`) by the name its note has here; by its path when
      // the format makes folders (the name alone, `02`, would be every month's).
      if (cited) {
        const path = dailyNotePath(cited, layout).slice(0, -3);
        return format.includes('/') ? path : path.slice(path.lastIndexOf('/') + 1);
      }
      return `${folder === '' ? '' : `${folder}/`}${format}.md`;
    },
  );
}

/**
 * Where `mem forget` moves a note: under the archive folder, by its layer (`insights/tea.md` →
 * `archive/insights/tea.md`; in an adopted vault `memory/insights/tea.md` →
 * `memory/archive/insights/tea.md`), a note outside the layers by its own path.
 */
export function archivePath(path: string, layout: VaultLayout = DEFAULT_LAYOUT): string {
  const layer = layerOf(path, layout);
  const archive = layout.folders.archive;
  if (layer === 'other' || layer === 'archive') return `${archive}/${path}`;
  const folder = layout.folders[layer];
  if (layer === 'episodes' && !path.startsWith(`${folder}/`)) return `${archive}/${path}`;
  return `${archive}/${layer}/${path.slice(folder.length + 1)}`;
}
