import { execFileSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

describe('mem doctor on notes that are not readable text', () => {
  it('lists a note in another encoding and a FIFO with a note name, with the reason', async () => {
    const root = await makeVault({ 'insights/fine.md': '# Fine\n\nCafé\n' });
    await writeFile(join(root, 'insights/latin.md'), Buffer.from('# Caf\xe9\n', 'latin1'));
    execFileSync('mkfifo', [join(root, 'insights/pipe.md')]);
    const json = await mem(['--vault', root, 'doctor', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).unreadable).toEqual([
      {
        path: 'insights/latin.md',
        reason:
          'not valid UTF-8 text (byte 0xE9 at offset 5); indexed with U+FFFD in its place, and mem will not rewrite it',
      },
      { path: 'insights/pipe.md', reason: 'a FIFO (named pipe), not a regular file; left out of the vault' },
    ]);
    const text = await mem(['--vault', root, 'doctor']);
    expect(text.stdout).toContain(
      'unreadable notes: 2\n  insights/latin.md: not valid UTF-8 text (byte 0xE9',
    );
  });

  // root reads a file whatever its mode, so this runs only as another user.
  it.skipIf(process.getuid?.() === 0)('lists a note it may not read', async () => {
    const root = await makeVault({ 'insights/secret.md': '# Secret\n' });
    await chmod(join(root, 'insights/secret.md'), 0o000);
    const json = await mem(['--vault', root, 'doctor', '--json']);
    expect(JSON.parse(json.stdout).unreadable).toEqual([
      { path: 'insights/secret.md', reason: 'permission denied; not indexed' },
    ]);
    await chmod(join(root, 'insights/secret.md'), 0o644);
  });

  it('lists nothing in a vault of UTF-8 notes', async () => {
    const root = await makeVault({ 'a.md': '\ufeff# A\n', 'b.md': '# 北京 🎉\n' });
    const json = await mem(['--vault', root, 'doctor', '--json']);
    expect(JSON.parse(json.stdout).unreadable).toEqual([]);
    expect((await mem(['--vault', root, 'doctor'])).stdout).toContain('unreadable notes: 0');
  });
});
