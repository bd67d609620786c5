import { spawn } from 'node:child_process';
import { mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { withLock } from '../../src/core/lock.js';
import { reportReliability } from '../helpers/reliability-report.js';

// When a lock left in the way is broken: every combination of who holds it (this process, another
// live process such as a pid reused since, a dead pid, pid 0), when its heartbeat says it last
// renewed (far and near in the past and future, now), on which host, and whether the heartbeat is
// in the file or only in its mtime, or the file is empty (a holder killed between create and
// write). A lock stamped in the future once blocked every write for ever; an empty one blocked
// every write for 30 s, past a writer's timeout.

const STALE_MS = 30_000;
const PIDS = ['self', 'other-alive', 'dead', 'zero'] as const;
const OFFSETS = [-10 * STALE_MS, -2 * STALE_MS, -STALE_MS / 2, 0, STALE_MS / 2, 2 * STALE_MS, 10 * STALE_MS];
const HOSTS = ['same', 'other'] as const;
const STAMPS = ['field', 'mtime', 'empty'] as const;
/** An empty lock file is taken for one being written this long (lock.ts UNWRITTEN_MS) */
const UNWRITTEN_MS = 5000;

let dead: number;
beforeAll(async () => {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  dead = child.pid ?? 0;
});

/** The rule, written plainly. */
function expectedStale(
  pid: (typeof PIDS)[number],
  offset: number,
  host: (typeof HOSTS)[number],
  stamp: (typeof STAMPS)[number],
): boolean {
  if (stamp === 'empty') return Math.abs(offset) > UNWRITTEN_MS;
  if (Math.abs(offset) > STALE_MS) return true;
  return host === 'same' && (pid === 'dead' || pid === 'zero');
}

describe('a lock left in the way', () => {
  it(`is broken exactly when its holder is gone (${PIDS.length * OFFSETS.length * HOSTS.length * STAMPS.length} cases)`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-lock-stale-'));
    const seen: string[] = [];
    const wrong: string[] = [];
    let n = 0;
    for (const pidKind of PIDS)
      for (const offset of OFFSETS)
        for (const host of HOSTS)
          for (const stamp of STAMPS) {
            const lock = join(dir, `case-${n++}.lock`);
            const pid = { self: process.pid, 'other-alive': process.ppid, dead, zero: 0 }[pidKind];
            const when = new Date(Date.now() + offset);
            const holder = {
              pid,
              host: host === 'same' ? hostname() : 'another-host.example',
              token: 'left',
              ...(stamp === 'field' ? { time: when.toISOString() } : {}),
            };
            await writeFile(lock, stamp === 'empty' ? '' : JSON.stringify(holder));
            if (stamp !== 'field') await utimes(lock, when, when);
            const outcome = await withLock(lock, async () => 'broken', {
              timeoutMs: 30,
              staleMs: STALE_MS,
            }).catch((error: unknown) => {
              if (error instanceof MemError && error.code === 'LOCKED') return 'held';
              throw error;
            });
            const want = expectedStale(pidKind, offset, host, stamp) ? 'broken' : 'held';
            const name = `${pidKind} ${offset / 1000}s ${host} ${stamp}`;
            seen.push(want);
            if (outcome !== want) wrong.push(`${name}: ${outcome}, expected ${want}`);
          }
    expect(wrong).toEqual([]);
    await reportReliability({
      class: 'stale write locks (pid, heartbeat past and future, host)',
      cases: n,
      wrong: wrong.length,
    });
    // Both outcomes were tried many times.
    expect(seen.filter((s) => s === 'broken').length).toBeGreaterThan(20);
    expect(seen.filter((s) => s === 'held').length).toBeGreaterThan(20);
  }, 30_000);
});
