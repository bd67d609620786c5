import type { FileHandle } from 'node:fs/promises';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { lockPath, withVaultLock } from '../../src/vault/lock.js';
import { writeAtomic } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// A full disk cannot be made here, so every write through a handle opened for a path matching
// `full` fails as a full disk does: the open succeeds, the write gets ENOSPC.
const disk = vi.hoisted(() => ({ full: undefined as RegExp | undefined, code: 'ENOSPC' }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof real.open>): Promise<FileHandle> => {
    const handle = await real.open(...args);
    if (!disk.full?.test(String(args[0]))) return handle;
    const fail = async () => {
      throw Object.assign(new Error(`${disk.code}: no space left on device, write`), { code: disk.code });
    };
    return new Proxy(handle, {
      get: (target, key) => {
        if (key === 'writeFile' || key === 'write' || key === 'appendFile') return fail;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return { ...real, open, default: { ...real, open } };
});

// The lock file is taken with synchronous calls (core/lock.ts): a descriptor opened for a path
// matching `full` fails its writes the same way.
const fullFds = vi.hoisted(() => new Set<number>());
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const openSync = (...args: Parameters<typeof real.openSync>): number => {
    const fd = real.openSync(...args);
    if (disk.full?.test(String(args[0]))) fullFds.add(fd);
    else fullFds.delete(fd);
    return fd;
  };
  const failing =
    <F extends (...args: never[]) => unknown>(write: F) =>
    (...args: Parameters<F>): ReturnType<F> => {
      if (typeof args[0] === 'number' && fullFds.has(args[0]))
        throw Object.assign(new Error(`${disk.code}: no space left on device, write`), { code: disk.code });
      return write(...args) as ReturnType<F>;
    };
  const writeSync = failing(real.writeSync);
  const writeFileSync = failing(real.writeFileSync);
  const closeSync = (fd: number) => {
    fullFds.delete(fd);
    real.closeSync(fd);
  };
  const mocked = { openSync, writeSync, writeFileSync, closeSync };
  return { ...real, ...mocked, default: { ...real, ...mocked } };
});

afterEach(async () => {
  disk.full = undefined;
  disk.code = 'ENOSPC';
  await cleanupVaults();
});

describe('a full disk', () => {
  it('taking the write lock: says no space while writing the lock, leaves no lock behind, and the next writer gets it', async () => {
    const root = await makeVault();
    disk.full = /write\.lock$/;
    const run = vi.fn(async () => 'ran');
    await expect(withVaultLock(root, run)).rejects.toThrow(
      new MemError('NO_SPACE', `no space left on device while writing ${lockPath(root)}`),
    );
    expect(run).not.toHaveBeenCalled();
    expect(await readdir(join(root, '.mem'))).not.toContain('write.lock');
    disk.full = undefined;
    // Before: the empty lock left behind made this wait 10 s and say "held by another process".
    await expect(withVaultLock(root, run, { timeoutMs: 1000 })).resolves.toBe('ran');
  });

  it.each(['ENOSPC', 'EDQUOT'])(
    'writing a note (%s): says so with the note, and leaves the note and no temp file',
    async (code) => {
      const root = await makeVault({ 'insights/a.md': '# A\n' });
      disk.full = /\.tmp$/;
      disk.code = code;
      const why = code === 'ENOSPC' ? 'no space left on device' : 'disk quota exceeded';
      await expect(
        writeAtomic(join(root, 'insights/a.md'), '# A, longer\n', { label: 'insights/a.md' }),
      ).rejects.toThrow(new MemError('NO_SPACE', `${why} while writing insights/a.md`));
      expect(await readdir(join(root, 'insights'))).toEqual(['a.md']);
      expect(await readFile(join(root, 'insights/a.md'), 'utf8')).toBe('# A\n');
    },
  );
});
