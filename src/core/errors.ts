/** Error codes a caller can branch on; exitCode is what the CLI exits with. */
export type MemErrorCode =
  /** The command line itself is wrong (a flag, a missing argument): the CLI's alone, exit 2 */
  | 'USAGE'
  /**
   * What a caller passed is refused before anything is written: a field a verb's input schema
   * refuses (api/inputs/: a `now` that is no time, an importance above 1, an unknown kind), or input
   * the library cannot read (`key=value` without `=`, a transcript that is not JSON, a budget too
   * small). The same words on every edge: the CLI exits 2, HTTP answers 400, MCP a tool error
   */
  | 'INVALID_ARGUMENT'
  /**
   * @deprecated merged into INVALID_ARGUMENT, which a MemError made with it carries instead; kept
   * only until the last modules that name it are changed
   */
  | 'INVALID_INPUT'
  | 'NO_VAULT'
  | 'NOT_FOUND'
  | 'PATH_OUTSIDE_VAULT'
  | 'INVALID_PATH'
  | 'EXISTS'
  /** Who may write which layer (vault/write-policy.ts) refuses this author this write: HTTP 403 */
  | 'NOT_ALLOWED'
  | 'CONFLICT'
  | 'INVALID_CONFIG'
  | 'GIT'
  | 'LOCKED'
  | 'NO_SPACE'
  | 'LLM';

export class MemError extends Error {
  readonly code: MemErrorCode;
  readonly exitCode: number;

  constructor(code: MemErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemError';
    this.code = code === 'INVALID_INPUT' ? 'INVALID_ARGUMENT' : code;
    // A refused argument exits like a wrong command line: the caller, not the vault, must change.
    this.exitCode = this.code === 'USAGE' || this.code === 'INVALID_ARGUMENT' ? 2 : 1;
  }
}
