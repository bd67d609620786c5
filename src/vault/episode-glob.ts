// Where a vault keeps its day notes, as git sees them: the `.gitattributes` pattern the merge
// driver is set on, from the vault's layout (`layout.daily`: `episodes/daily/*.md` by default, an
// adopted Obsidian vault's own folder and date format otherwise).
import type { MemConfig } from '../core/config/config.js';
import { dayOfPath, layoutOf } from './layout.js';

/** The git merge driver's name (`merge.<name>.driver` in the repository's config). */
export const EPISODE_MERGE_DRIVER = 'memvault-episodes';

/**
 * The `.gitattributes` pattern of the vault's day notes, relative to the vault folder: the daily
 * folder, then the date format with each run of letters as `*` (`YYYY-MM-DD` → `*-*-*.md`,
 * `YYYY/MM/YYYY-MM-DD` → `*\/*\/*-*-*.md`), `[literal]` text kept, a space as `[[:space:]]`.
 */
export function episodeGlob(config: Pick<MemConfig, 'layout'>): string {
  const { folder, format } = layoutOf(config).daily;
  const name = format
    .replace(/\[([^\]]*)\]|[A-Za-z]+/g, (_token, literal: string | undefined) =>
      literal === undefined ? '*' : literal.replace(/[*?[\\]/g, '\\$&'),
    )
    .replace(/\*+/g, '*')
    .replace(/ /g, '[[:space:]]');
  return `${folder === '' ? '' : `${folder.replace(/ /g, '[[:space:]]')}/`}${name}.md`;
}

/** The day (YYYY-MM-DD) of a vault path that is a day note under the vault's layout, or undefined. */
export function dayOfEpisodePath(path: string, config: Pick<MemConfig, 'layout'>): string | undefined {
  return dayOfPath(path, layoutOf(config));
}
