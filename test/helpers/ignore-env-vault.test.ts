import { afterAll, describe, expect, it, vi } from 'vitest';
import { ignoreEnvVault } from './ignore-env-vault.js';

// A developer's own setting, as the shell that runs the suite may have it.
const before = process.env['MEM_VAULT'];
const gitDir = process.env['GIT_DIR'];
process.env['MEM_VAULT'] = '/home/someone/notes';

afterAll(() => {
  expect(process.env['MEM_VAULT']).toBe('/home/someone/notes');
  if (before === undefined) delete process.env['MEM_VAULT'];
  else process.env['MEM_VAULT'] = before;
});

describe('ignoreEnvVault', () => {
  ignoreEnvVault();

  it('unsets MEM_VAULT for each test', () => {
    expect(process.env['MEM_VAULT']).toBeUndefined();
    vi.stubEnv('MEM_VAULT', '/tmp/elsewhere');
    vi.stubEnv('GIT_DIR', '/tmp/elsewhere/.git');
  });

  it('restores what the test before stubbed', () => {
    expect(process.env['MEM_VAULT']).toBeUndefined();
    expect(process.env['GIT_DIR']).toBe(gitDir);
  });
});
