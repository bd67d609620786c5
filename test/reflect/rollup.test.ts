import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, copyExampleVault, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

/** Monday 30 November 2026, morning in Shanghai: week 48 (23 to 29 November) has ended, November has not. */
const NOW = '2026-11-30T09:00:00+08:00';

describe('extractive rollups (no model)', () => {
  it('rolls up the last finished week of vault-example offline, citing its entries', async () => {
    const root = await copyExampleVault();
    const run = await mem(['reflect', '--rollup', 'week', '--now', NOW, '--json'], { cwd: root });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result.written.map((w: { path: string }) => w.path)).toEqual(['episodes/weekly/2026-W48.md']);
    expect(result.written[0].generator).toBe('extractive');
    const text = await readFile(join(root, 'episodes/weekly/2026-W48.md'), 'utf8');
    expect(text).toMatch(/^---\ntype: rollup\nperiod: 2026-W48\n[\s\S]*\nmem_hash: [0-9a-f]{16}\n---\n/);
    expect(text).toContain('sources:\n  - "[[2026-11-23]]"');
    expect(text).toContain('# Week 48, 2026\n');
    // Highlights quote entries with their citations as wiki links to the blocks.
    const highlights = text.split('## Highlights\n\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(highlights.length).toBeGreaterThanOrEqual(4);
    expect(highlights.length).toBeLessThanOrEqual(8);
    for (const line of highlights) expect(line).toMatch(/ \[\[2026-11-(2[3-9])#\^[\w-]+\]\]$/);
    expect(text).toMatch(/## Capsule\n\n2026-W48 \(2026-11-23 to 2026-11-29\): \d+ entries over \d+ days/);
  });
});
