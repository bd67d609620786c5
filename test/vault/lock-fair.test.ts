import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { withLock } from '../../src/vault/lock.js';
import { WAIT, WAIT_MS } from '../helpers/wait.js';

describe('a writer waiting for the lock', () => {
  it('gets its turn from a writer that takes the lock again and again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-lock-fair-'));
    const lock = join(dir, 'write.lock');
    let stop = false;
    let turns = 0;
    // Hog turns begun after the newcomer claimed the next turn: fairness means at most the one then
    // under way, however slow the machine (a time limit here failed under load, not for unfairness).
    let turnsAfterClaim = 0;
    const claimed = () => existsSync(`${lock}.want`);
    // Takes the lock again the moment it lets go, as a process remembering in a loop does.
    const hog = (async () => {
      while (!stop) {
        await withLock(lock, async () => {
          turns++;
          if (claimed()) turnsAfterClaim++;
          await sleep(20);
        });
      }
    })();
    await vi.waitFor(() => expect(turns).toBeGreaterThan(1), WAIT);

    const got = await withLock(lock, async () => 'mine', { timeoutMs: WAIT_MS });
    stop = true;
    await hog;

    expect(got).toBe('mine');
    expect(turnsAfterClaim).toBeLessThanOrEqual(1);
    // The claim to the next turn is gone with the turn.
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('a claim to the next turn', () => {
  it('makes a newcomer wait while it is fresh, and lapses when its writer is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-lock-want-'));
    const lock = join(dir, 'write.lock');
    const claim = (pid: number) =>
      writeFile(
        `${lock}.want`,
        JSON.stringify({ pid, host: hostname(), time: new Date().toISOString(), token: 'waiter' }),
      );
    // A live waiter (this process, under another token) claimed the next turn: the lock is free,
    // yet a newcomer steps aside.
    // A live waiter renews its claim while it waits, so it stays fresh however slow this run is.
    await claim(process.pid);
    const renewing = setInterval(() => void claim(process.pid), 100);
    await expect(
      withLock(lock, async () => 'newcomer', { timeoutMs: 200 }).finally(() => clearInterval(renewing)),
    ).rejects.toMatchObject({ code: 'LOCKED' });
    // The waiter died: its claim no longer holds anyone back.
    await claim(2 ** 22 + 12345);
    expect(await withLock(lock, async () => 'newcomer', { timeoutMs: WAIT_MS })).toBe('newcomer');
  });
});
