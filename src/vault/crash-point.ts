/**
 * A test hook for crash safety: with `MEM_TEST_CRASH_AFTER=n` in the environment, the process kills
 * itself with SIGKILL at the n-th crash point it passes (points sit between the steps of a write:
 * temp file written, file renamed, file deleted). Unset, a crash point costs one lookup.
 */
let passed = 0;
const limit = Number(process.env['MEM_TEST_CRASH_AFTER'] ?? 0);

export function crashPoint(): void {
  if (limit > 0 && ++passed >= limit) process.kill(process.pid, 'SIGKILL');
}
