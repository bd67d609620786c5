// Where a vault keeps its daily episode notes, as git sees them: the one pattern the merge driver's
// `.gitattributes` line and `mem sync` use to know a day note (the folder becomes configurable).
import type { MemConfig } from './config.js';

/** The git merge driver's name (`merge.<name>.driver` in the repository's config). */
export const EPISODE_MERGE_DRIVER = 'memvault-episodes';

/** The `.gitattributes` pattern of the vault's day notes, relative to the vault folder. */
export function episodeGlob(_config?: Pick<MemConfig, 'timezone'>): string {
  return 'episodes/daily/*.md';
}

/** The day (YYYY-MM-DD) of a vault path that `episodeGlob` matches, or undefined. */
export function dayOfEpisodePath(path: string, config?: Pick<MemConfig, 'timezone'>): string | undefined {
  const glob = episodeGlob(config);
  const folder = glob.slice(0, glob.lastIndexOf('/') + 1);
  if (!path.startsWith(folder)) return undefined;
  return /^(\d{4}-\d{2}-\d{2})\.md$/.exec(path.slice(folder.length))?.[1];
}
