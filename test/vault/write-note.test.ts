import { writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { hashText, readForWrite, updateFile, writeAtomic } from '../../src/vault/write-note.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mem-write-'));
});

async function errorOf(promise: Promise<unknown>): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MemError);
    return error as MemError;
  }
  throw new Error('expected a MemError');
}

describe('readForWrite', () => {
  it('returns the text and the sha256 of its bytes, or undefined when missing', async () => {
    await writeFile(join(dir, 'a.md'), 'hello');
    expect(await readForWrite(join(dir, 'a.md'))).toEqual({
      text: 'hello',
      hash: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    });
    expect(await readForWrite(join(dir, 'missing.md'))).toBeUndefined();
  });
});

describe('writeAtomic', () => {
  it('creates missing folders and leaves no temp file behind', async () => {
    const file = join(dir, 'episodes', 'daily', '2026-11-29.md');
    await writeAtomic(file, '# Day\n', { expectedHash: null });
    expect(await readFile(file, 'utf8')).toBe('# Day\n');
    expect(await readdir(join(dir, 'episodes', 'daily'))).toEqual(['2026-11-29.md']);
  });

  it('replaces the file by rename (a new inode), so a reader never sees half a file', async () => {
    const file = join(dir, 'a.md');
    await writeFile(file, 'old');
    const before = await stat(file);
    await writeAtomic(file, 'new', { expectedHash: hashText('old') });
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await stat(file)).ino).not.toBe(before.ino);
  });

  it('keeps the permissions of the file it replaces', async () => {
    const file = join(dir, 'private.md');
    await writeFile(file, 'old');
    await chmod(file, 0o600);
    await writeAtomic(file, 'new', {});
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses to overwrite a hand edit made since the read, and removes its temp file', async () => {
    const file = join(dir, 'profile.md');
    await writeFile(file, 'as read');
    const read = await readForWrite(file);
    await writeFile(file, 'edited by hand');
    const error = await errorOf(
      writeAtomic(file, 'from mem', { expectedHash: read?.hash, label: 'profile.md' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('profile.md changed on disk since it was read; nothing was written');
    expect(await readFile(file, 'utf8')).toBe('edited by hand');
    expect(await readdir(dir)).toEqual(['profile.md']);
  });

  it('with expectedHash null refuses when the file appeared meanwhile', async () => {
    const file = join(dir, 'new.md');
    await writeFile(file, 'someone else made it');
    const error = await errorOf(writeAtomic(file, 'mine', { expectedHash: null }));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe(`${file} changed on disk since it was read; nothing was written`);
    expect(await readFile(file, 'utf8')).toBe('someone else made it');
    expect(await readdir(dir)).toEqual(['new.md']);
  });

  it('writes without a check when expectedHash is undefined', async () => {
    const file = join(dir, 'a.md');
    await writeFile(file, 'anything');
    await writeAtomic(file, 'overwritten', {});
    expect(await readFile(file, 'utf8')).toBe('overwritten');
  });

  it('never writes through a symlink at the target', async () => {
    await mkdir(join(dir, 'outside'));
    await writeFile(join(dir, 'outside', 'target.md'), 'outside');
    await mkdir(join(dir, 'vault'));
    await symlink(join(dir, 'outside', 'target.md'), join(dir, 'vault', 'link.md'));
    const error = await errorOf(writeAtomic(join(dir, 'vault', 'link.md'), 'pwned', { label: 'link.md' }));
    expect(error.code).toBe('INVALID_PATH');
    expect(error.message).toBe('link.md is a symlink; mem does not write through symlinks');
    expect(await readFile(join(dir, 'outside', 'target.md'), 'utf8')).toBe('outside');
    expect(await readdir(join(dir, 'vault'))).toEqual(['link.md']);
  });
});

describe('updateFile', () => {
  it('appends to a missing file and to an existing one', async () => {
    const file = join(dir, 'log.md');
    const append = (line: string) => (current: string | undefined) => `${current ?? ''}${line}\n`;
    expect(await updateFile(file, append('one'))).toEqual({ text: 'one\n', changed: true });
    expect(await updateFile(file, append('two'))).toEqual({ text: 'one\ntwo\n', changed: true });
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('reports no change when the transform returns undefined or the same text', async () => {
    const file = join(dir, 'same.md');
    expect(await updateFile(file, () => undefined)).toEqual({ text: undefined, changed: false });
    expect(await readdir(dir)).toEqual([]);
    await writeFile(file, 'x');
    expect(await updateFile(file, (current) => current)).toEqual({ text: 'x', changed: false });
  });

  it('re-runs the transform on the new content when a hand edit lands between read and write', async () => {
    const file = join(dir, 'daily.md');
    await writeFile(file, 'entry 1\n');
    const seen: Array<string | undefined> = [];
    const result = await updateFile(file, (current) => {
      seen.push(current);
      // The first time, a person saves the note while mem is working.
      if (seen.length === 1) writeFileSync(file, 'entry 1\nhand edit\n');
      return `${current}entry 2\n`;
    });
    expect(seen).toEqual(['entry 1\n', 'entry 1\nhand edit\n']);
    expect(result).toEqual({ text: 'entry 1\nhand edit\nentry 2\n', changed: true });
    expect(await readFile(file, 'utf8')).toBe('entry 1\nhand edit\nentry 2\n');
  });

  it('gives up with CONFLICT after the retries and keeps the last hand edit', async () => {
    const file = join(dir, 'busy.md');
    await writeFile(file, 'v0');
    let calls = 0;
    const error = await errorOf(
      updateFile(
        file,
        (current) => {
          calls++;
          writeFileSync(file, `v${calls}`);
          return `${current} + mem`;
        },
        { retries: 2, label: 'busy.md' },
      ),
    );
    expect(calls).toBe(3);
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('busy.md kept changing on disk (3 attempts); nothing was written');
    expect(await readFile(file, 'utf8')).toBe('v3');
    expect(await readdir(dir)).toEqual(['busy.md']);
  });
});
