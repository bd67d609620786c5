import { MemError } from './errors.js';

/**
 * A write that failed for want of space, said as such and with the file it was writing: the bare
 * system error names no file, and a lock file left empty by it made every later command report
 * "write.lock is held by another process" instead. Other errors are returned unchanged.
 */
export function writeError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return error;
  const why = code === 'ENOSPC' ? 'no space left on device' : 'disk quota exceeded';
  return new MemError('NO_SPACE', `${why} while writing ${path}`, { cause: error });
}
