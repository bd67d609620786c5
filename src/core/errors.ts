/** Error codes a caller can branch on; exitCode is what the CLI exits with. */
export type MemErrorCode =
  /** The command line itself is wrong (a flag, a missing argument): the CLI's alone, exit 2 */
  | 'USAGE'
  /**
   * An argument a caller passed the library is refused before anything is read or written (a `now`
   * that is no time, `key=value` without `=`): exit 2 like USAGE, HTTP 400
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
  | 'INVALID_INPUT'
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
    this.code = code;
    // A refused argument exits like a wrong command line: the caller, not the vault, must change.
    this.exitCode = code === 'USAGE' || code === 'INVALID_ARGUMENT' ? 2 : 1;
  }
}
