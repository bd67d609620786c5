import { fileURLToPath } from 'node:url';

/** `templates/` of the installed package (beside `dist/` or `src/`). */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));
