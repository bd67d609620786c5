import { fileURLToPath } from 'node:url';

/**
 * The `mem` command's script, dist/cli/main.js of this package. Found by URL from this file, which
 * sits at the same depth in src/cli/ and in the bundle's dist/cli/ (as core/templates-dir.ts does).
 */
export const MEM_ENTRY = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
