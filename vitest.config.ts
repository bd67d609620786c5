import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: keep forks to two so end-to-end tests with child processes do not starve.
    maxWorkers: 2,
  },
});
