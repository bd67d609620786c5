import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Vault discovery falls back to the process's MEM_VAULT, so a developer's own setting would leak
 * into every test that opens a vault without a path. Call once at the top of a test file: each test
 * runs with MEM_VAULT unset, and every variable a test stubs is restored after it.
 */
export function ignoreEnvVault(): void {
  beforeEach(() => {
    vi.stubEnv('MEM_VAULT', undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
}
