// The vault's one serial queue: every write, every refresh and every cache save runs alone on it,
// whether it came from a caller, from the watcher or from a server, so no caller ever has to order
// them itself. Reads are synchronous and run between two queued steps: never on a half-applied change.
import { CONFIG_FILE } from '../core/config/config.js';
import { MemError } from '../core/errors.js';

const noop = () => undefined;

export class WriteQueue {
  /** The end of the queue */
  private tail: Promise<void> = Promise.resolve();
  /** What runs once before the first write (see prepareFirstWrite), until it has succeeded */
  private prepare: (() => Promise<void>) | undefined;

  /**
   * @param root the vault folder, named in the error a write to a folder that is no vault gets
   * @param initialized the folder holds `mem.config.json`: only then may it be written
   */
  constructor(
    private readonly root: string,
    private readonly initialized: boolean,
  ) {}

  /** Runs `fn` on the queue: after every step queued before it, before any queued after. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.then(noop, noop);
    return run;
  }

  /**
   * Sets what runs on the queue before the first write: the merge driver's config and the repair
   * of days git union-merged (write/sync/repair-union.ts). Once it succeeds it is not run again.
   */
  prepareFirstWrite(fn: () => Promise<void>): void {
    this.prepare = fn;
  }

  /** Runs a write on the queue, once the folder is known to be a vault. */
  writing<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.initialized) return Promise.reject(notAVault(this.root));
    return this.exclusive(async () => {
      const prepare = this.prepare;
      if (prepare) {
        await prepare();
        this.prepare = undefined;
      }
      return fn();
    });
  }
}

/** The error of a write (or a writing verb) in a folder without `mem.config.json`. */
export function notAVault(root: string): MemError {
  return new MemError(
    'NO_VAULT',
    `${root} is not a vault (no ${CONFIG_FILE}); run \`mem init ${root}\` to make it one. Reading works without it, writing and indexing do not`,
  );
}
