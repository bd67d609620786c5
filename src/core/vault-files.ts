// The names of the files that make a folder a vault and hold what mem derives from it. Kept apart
// from config.ts (which loads zod) so that the command line can find a vault and its running
// server without loading the library.

/** The file that makes a folder a vault. */
export const CONFIG_FILE = 'mem.config.json';

/** The cache folder's name; a dot-name, so it is never read as notes (see core/ignored-path.ts). */
export const CACHE_DIR = '.mem';
