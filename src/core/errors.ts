/** Error codes a caller can branch on; exitCode is what the CLI exits with. */
export type MemErrorCode =
  | 'USAGE'
  | 'NO_VAULT'
  | 'NOT_FOUND'
  | 'PATH_OUTSIDE_VAULT'
  | 'INVALID_PATH'
  | 'EXISTS'
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
    this.exitCode = code === 'USAGE' ? 2 : 1;
  }
}
