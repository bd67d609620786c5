/** Error codes a caller can branch on; exitCode is what the CLI exits with. */
export type MemErrorCode =
  /** The command line itself is wrong (a flag, a missing argument): the CLI's alone, exit 2 */
  | 'USAGE'
  /**
   * What a caller passed is refused before anything is written: a field a verb's input schema
   * refuses (api/inputs/: a `now` that is no time, an importance above 1, an unknown kind), or input
   * the library cannot read (`key=value` without `=`, a transcript that is not JSON, a budget too
   * small). The same words on every edge: the CLI exits 2, HTTP answers 400, MCP a tool error.
   * (It took in INVALID_INPUT, which overlapped it, undocumented, with exit 1.)
   */
  | 'INVALID_ARGUMENT'
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
  /** The vault (or its index) was closed before this read began: HTTP 503 */
  | 'CLOSED'
  | 'NO_SPACE'
  | 'LLM';

export class MemError extends Error {
  readonly code: MemErrorCode;
  readonly exitCode: number;

  constructor(code: MemErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemError';
    this.code = code;
    // A refused argument exits like a wrong command line: the caller, not the vault, must change.
    this.exitCode = code === 'USAGE' || code === 'INVALID_ARGUMENT' ? 2 : 1;
  }
}
