/**
 * How long a test waits for an event it polls for (a watcher catching up, a run starting, a
 * server answering). Only a failing test waits this long: a passing one returns the moment the
 * condition holds. vitest's own default (1 s) is missed on a machine with a load average of 10
 * on two cores, where a process gets a fifth of a core: there the watcher's burst of 500 files took
 * 20.7 s to be searchable (0.8-1.9 s at load 15 without the hogs), past the 20 s this test used to allow. Half the test
 * timeout (vitest.config.ts), so a failing wait is reported as itself, not as a timed-out test.
 */
export const WAIT = { timeout: 60_000, interval: 20 } as const;

/** The same deadline for product calls that take one in milliseconds (`whenIdle(ms)`). */
export const WAIT_MS = WAIT.timeout;
