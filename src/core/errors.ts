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

/** What a refused argument was, for the message: `a number`, `null`, `an array`, `nothing`. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The library's argument checks, where a Vault verb's argument first arrives (a JavaScript caller
 * has no compiler to refuse `recall(5)`): INVALID_ARGUMENT naming it, never a TypeError from deep
 * inside, and before anything is written. One typeof each: recall and compile run every turn.
 */
export function expectString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string') throw refused(name, 'a string', value);
}

/** An options object (a plain object, not null and not an array). */
export function expectOptions(value: unknown, name: string): asserts value is object {
  if (!isOptions(value)) throw refused(name, 'an object', value);
}

export function isOptions(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** INVALID_ARGUMENT: `name` must be `what` (`a string`, `a function`), and `value` is not. */
export function refused(name: string, what: string, value: unknown): MemError {
  return new MemError('INVALID_ARGUMENT', `${name} must be ${what}, got ${kindOf(value)}`);
}
