import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A deadline for a test that hangs, not a measure of speed: with a load average of 10 on two
    // cores a process gets a fifth of a core, and the daemon tests (a dozen node processes each,
    // 6-15 s alone) ran past 30 s there. Tests wait on events, so a passing test never waits this long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: keep forks to two so end-to-end tests with child processes do not starve.
    maxWorkers: 2,
  },
});
