import { describe, expect, it, vi } from 'vitest';

// A vault on a read-only file system (or one this user may not write): the claim cannot be
// written, and no other server could write there either, so `mem serve` still serves its reads.
// Run as root a chmod does not make a folder unwritable, so the failure is made where it happens.
vi.mock('../../src/core/cache-dir.js', () => ({
  ensureCacheDir: async () => {
    throw Object.assign(new Error('EROFS: read-only file system, mkdir'), { code: 'EROFS' });
  },
}));

const { claimServeRecord } = await import('../../src/core/serve-record.js');

describe('claiming a vault that cannot be written', () => {
  it('claims nothing and refuses nothing on a read-only vault', async () => {
    await expect(
      claimServeRecord('/nowhere/vault', { url: '', pid: process.pid, version: '0' }),
    ).resolves.toBeUndefined();
  });
});
