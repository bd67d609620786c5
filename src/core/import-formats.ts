/**
 * The formats `mem import` reads. Here in core/ so the CLI can check `--format` and list them in
 * its help without loading the library.
 */
export const IMPORT_FORMATS = ['chatgpt', 'claude', 'mcp-memory', 'vtuber', 'journal'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
