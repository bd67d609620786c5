/**
 * The library (src/internal.ts: the public API and what only the edges need), loaded when a command runs rather than when the program starts: `mem --help`,
 * `mem --version` and a usage error never pay for the index, the parser or a model client.
 * Static imports from cli/ are type-only or from core/ (errors and types, which load nothing).
 */
export const library = (): Promise<typeof import('../internal.js')> => import('../internal.js');
