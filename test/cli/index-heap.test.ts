import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

// `mem index` may build a whole index in its heap, and bounds the heap's growth as a server does
// (server-heap.ts; the bound itself is tested there, in a process of its own): a cold index of
// 100,000 notes peaked at 500-520 MiB of RSS so, against 605-653 MiB left to V8. A short command
// keeps V8's own step, which costs it fewer collections.
const bound = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../src/serve/server-heap.js', () => ({
  boundHeapGrowth: () => {
    bound.calls++;
    return true;
  },
}));

afterEach(cleanupVaults);

describe('mem index', () => {
  it("bounds the heap's growth while it indexes, and a recall does not", async () => {
    const root = await makeVault({ 'insights/tea.md': '# Tea\n\nRain likes green tea.\n' });
    const recall = await mem(['--vault', root, 'recall', 'tea', '--no-server', '--json']);
    expect(recall.code, recall.stderr).toBe(0);
    expect(bound.calls).toBe(0);
    const index = await mem(['--vault', root, 'index', '--rebuild', '--json']);
    expect(index.code, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout).notes).toBe(1);
    expect(bound.calls).toBe(1);
  });
});
