import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { WriteQueue } from '../../src/live/write-queue.js';

/** A promise and the function that settles it, to hold a step of the queue open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('the write queue', () => {
  it('runs steps one at a time, in the order they were queued', async () => {
    const queue = new WriteQueue('/vault', true);
    const order: string[] = [];
    const first = gate();
    const a = queue.exclusive(async () => {
      order.push('a starts');
      await first.opened;
      order.push('a ends');
    });
    const b = queue.exclusive(async () => {
      order.push('b');
    });
    // b waits for a, however long a takes.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a starts']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['a starts', 'a ends', 'b']);
  });

  it('goes on after a step fails, and gives the failure to that step alone', async () => {
    const queue = new WriteQueue('/vault', true);
    const failed = queue.exclusive(() => Promise.reject(new Error('disk full')));
    const next = queue.exclusive(async () => 'written');
    await expect(failed).rejects.toThrow('disk full');
    await expect(next).resolves.toBe('written');
  });

  it('refuses a write in a folder that is no vault without running it, and still runs other steps', async () => {
    const queue = new WriteQueue('/home/me', false);
    let ran = false;
    const write = queue.writing(async () => {
      ran = true;
    });
    await expect(write).rejects.toMatchObject({ code: 'NO_VAULT' });
    await expect(write).rejects.toBeInstanceOf(MemError);
    await expect(write).rejects.toThrow('/home/me is not a vault (no mem.config.json)');
    expect(ran).toBe(false);
    await expect(queue.exclusive(async () => 'refreshed')).resolves.toBe('refreshed');
  });
});
