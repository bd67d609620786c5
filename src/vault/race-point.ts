/**
 * A test hook for races with other writers: a test sets a function that runs at named points
 * between the steps of an append (the file about to be read, read again while it settles, read,
 * checked unchanged and about to be written, written) and does there what an editor's save may do at that
 * moment. Unset, a point costs one lookup. Like crash-point.ts, it lets a test walk every
 * interleaving instead of waiting for one.
 */
export type RacePoint = 'before-read' | 'settling' | 'after-read' | 'before-write' | 'after-write';

let hook: ((point: RacePoint, abs: string) => void) | undefined;

export function racePoint(point: RacePoint, abs: string): void {
  hook?.(point, abs);
}

/** Sets (or, with undefined, clears) the function every race point calls, synchronously. */
export function setRaceHook(next: ((point: RacePoint, abs: string) => void) | undefined): void {
  hook = next;
}
