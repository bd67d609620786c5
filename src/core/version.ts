import { readFileSync } from 'node:fs';

/** The installed package's version, from package.json beside `dist/` (or `src/`). */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
