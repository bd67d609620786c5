/**
 * How long a test waits for an event it polls for (a watcher catching up, a run starting, a
 * server answering). Only a failing test waits this long: a passing one returns the moment the
 * condition holds. vitest's own default (1 s) is missed on a machine with a load average of 10
 * on two cores, where a process gets a fifth of a core.
 */
export const WAIT = { timeout: 30_000, interval: 20 } as const;

/** The same deadline for product calls that take one in milliseconds (`whenIdle(ms)`). */
export const WAIT_MS = WAIT.timeout;
