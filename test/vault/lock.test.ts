import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transformWithOxc } from 'vite';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { lockPath, withLock, withVaultLock } from '../../src/vault/lock.js';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '..', '..', 'src');
const fixture = join(here, '..', 'fixtures', 'lock', 'append.mjs');
let dir: string;

/**
 * The child processes run plain Node, so the modules they need are built to JS first: the two the
 * fixture imports and every module they import in turn, found by following their relative imports
 * (a list kept by hand missed a module write-note.ts came to import).
 */
async function buildModules(out: string): Promise<void> {
  const todo = ['vault/lock.ts', 'vault/write-note.ts'];
  const built = new Set<string>();
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (built.has(file)) continue;
    built.add(file);
    const code = await readFile(join(src, file), 'utf8');
    // Static imports of values (`import type` leaves nothing to load) from this repository's files.
    for (const [, kind, spec] of code.matchAll(
      /^(?:import|export) (type )?[^;]*?from '(\.{1,2}\/[^']+)\.js';/gms,
    ))
      if (!kind) todo.push(join(dirname(file), `${spec}.ts`));
    const result = await transformWithOxc(code, file, { lang: 'ts' });
    const target = join(out, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, result.code);
  }
}

/** A pid that certainly belongs to no running process: one that has just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid ?? 0;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mem-lock-'));
});

describe('withVaultLock', () => {
  it('holds the lock in .mem/, created with its own .gitignore so the lock never lands in git', async () => {
    const seen = await withVaultLock(dir, async () => readdir(join(dir, '.mem')));
    expect(seen.sort()).toEqual(['.gitignore', 'write.lock']);
    expect(lockPath(dir)).toBe(join(dir, '.mem', 'write.lock'));
    expect(await readFile(join(dir, '.mem', '.gitignore'), 'utf8')).toBe('*\n');
    expect(await readdir(join(dir, '.mem'))).toEqual(['.gitignore']);
  });
});

describe('withLock', () => {
  let build: string;
  beforeAll(async () => {
    build = await mkdtemp(join(tmpdir(), 'mem-lock-build-'));
    await buildModules(build);
  });

  it('two processes appending 200 lines each lose and duplicate nothing', async () => {
    const file = join(dir, 'log.md');
    const lock = join(dir, '.mem', 'lock');
    const run = promisify(execFile);
    await Promise.all(
      ['a', 'b'].map((name) => run(process.execPath, [fixture, build, lock, file, name, '200'])),
    );
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const expected = ['a', 'b'].flatMap((name) => Array.from({ length: 200 }, (_, i) => `${name} ${i}`));
    expect(lines.length).toBe(400);
    expect([...lines].sort()).toEqual([...expected].sort());
    // Each writer's own lines stay in its order.
    expect(lines.filter((line) => line.startsWith('a '))).toEqual(expected.slice(0, 200));
    expect(await readdir(join(dir, '.mem'))).toEqual([]);
  }, 120_000);

  it('releases the lock after fn, also when fn throws', async () => {
    const lock = join(dir, 'lock');
    expect(await withLock(lock, async () => 42)).toBe(42);
    await expect(withLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes {pid, host, time} into the lock while it is held', async () => {
    const lock = join(dir, 'lock');
    const held = await withLock(lock, async () => JSON.parse(await readFile(lock, 'utf8')));
    expect(held.pid).toBe(process.pid);
    expect(held.host).toBe(hostname());
    expect(Number.isNaN(Date.parse(held.time))).toBe(false);
  });

  it('breaks a lock left by a dead process on this host', async () => {
    const lock = join(dir, 'lock');
    const pid = await deadPid();
    await writeFile(lock, JSON.stringify({ pid, host: hostname(), time: new Date().toISOString() }));
    expect(await withLock(lock, async () => 'recovered', { timeoutMs: 5000 })).toBe('recovered');
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks a lock older than staleMs even when its holder looks alive', async () => {
    const lock = join(dir, 'lock');
    const old = new Date(Date.now() - 60_000).toISOString();
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), time: old }));
    expect(await withLock(lock, async () => 'taken', { staleMs: 30_000 })).toBe('taken');
  });

  it('gives up with LOCKED naming the holder when a live process keeps the lock', async () => {
    const lock = join(dir, 'lock');
    const time = new Date().toISOString();
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), time }));
    let ran = false;
    const error = await withLock(
      lock,
      async () => {
        ran = true;
      },
      { timeoutMs: 100 },
    ).catch((e: unknown) => e);
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).code).toBe('LOCKED');
    expect((error as MemError).message).toBe(
      `${lock} is held by pid ${process.pid} on ${hostname()} since ${time}; gave up after 100 ms`,
    );
    // Someone else's lock is left alone.
    expect(JSON.parse(await readFile(lock, 'utf8')).pid).toBe(process.pid);
  });

  it('a holder that is alive renews its lock, so it is not broken after staleMs', async () => {
    const lock = join(dir, 'held.lock');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = withLock(
      lock,
      async () => {
        entered();
        await held;
      },
      { staleMs: 400 },
    );
    await inside;
    // Waits well past staleMs; without renewal the lock would be taken as left by a crash.
    const second = withLock(lock, async () => 'broke in', { staleMs: 400, timeoutMs: 1500 });
    await expect(second).rejects.toThrow(/is held by pid \d+ on .* gave up after 1500 ms/);
    release();
    await first;
    expect(await withLock(lock, async () => 'free again', { staleMs: 400 })).toBe('free again');
  });

  it('a lock held by a process on another host is not judged by pid', async () => {
    const lock = join(dir, 'lock');
    const pid = await deadPid();
    await writeFile(lock, JSON.stringify({ pid, host: 'some-other-host', time: new Date().toISOString() }));
    const error = await withLock(lock, async () => 'no', { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((error as MemError).code).toBe('LOCKED');
  });
});
