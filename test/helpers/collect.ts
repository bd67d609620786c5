import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collector, as --expose-gc gives it to a process started without the flag. */
export function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Collects garbage, each time in a later job, until `settled()` holds or `timeoutMs` has passed;
 * returns what `settled()` said last.
 *
 * One collection is not proof that something is kept. A WeakRef made or read keeps its target to
 * the end of the job, and an optimizing compile that V8 runs on its own thread holds the function
 * it compiles, with the closure's context and all it refers to, until the code is installed on
 * the main thread: a test that collected once failed about one run in three that way, more often
 * on a busy machine. What is really kept stays kept however often it is collected, so a test
 * that asserts on the answer still fails when it should.
 */
export async function collectUntil(settled: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const gc = collector();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A later job, and a moment for V8's compiler thread to finish what it holds.
    await new Promise((resolve) => setTimeout(resolve, 1));
    gc();
    if (settled()) return true;
    if (Date.now() > deadline) return false;
  }
}
