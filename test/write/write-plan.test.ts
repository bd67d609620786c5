// The one tail of every multi-step write (src/write/write-plan.ts): a preview writes nothing; a run
// records its plan before its first write, and a run cut short leaves the record, so the next run of
// the same plan commits all of it as one commit; the commit is made under the write lock.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/core/config/config.js';
import { withVaultLock } from '../../src/vault/lock.js';
import { runWritePlan, underPlan } from '../../src/write/write-plan.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { planRecords } from '../helpers/plan-records.js';

afterEach(cleanupVaults);

describe('runWritePlan', () => {
  it('a dry run returns the preview and touches nothing: no apply, no record, no commit', async () => {
    const root = await gitVault({ 'a.md': 'a\n' });
    const head = await git(root, 'rev-parse', 'HEAD');
    let applied = false;
    const result = await runWritePlan(root, defaultConfig(), {
      key: 'test',
      dryRun: true,
      preview: async () => 'would write a.md',
      paths: ['a.md'],
      message: 'mem: test',
      apply: async () => {
        applied = true;
        return { written: [] };
      },
      nothing: 'nothing',
    });
    expect(result).toEqual({ dryRun: true, preview: 'would write a.md' });
    expect(applied).toBe(false);
    expect(await planRecords(root)).toEqual([]);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('a run cut short keeps its record; the next run of the plan commits every path of it, once', async () => {
    const root = await gitVault({ 'a.md': 'a\n', 'b.md': 'b\n' });
    const config = defaultConfig();
    const steps = (write: string[], fail: boolean) => ({
      key: 'test',
      preview: async () => undefined,
      paths: ['a.md', 'b.md'],
      message: 'mem: test both',
      apply: async () => {
        for (const path of write) await writeFile(join(root, path), `${path} changed\n`);
        if (fail) throw new Error('cut short');
        return { written: write };
      },
      nothing: 'nothing to write',
    });
    await expect(runWritePlan(root, config, steps(['a.md'], true))).rejects.toThrow('cut short');
    expect(await planRecords(root)).toEqual([
      {
        key: 'test',
        message: 'mem: test both',
        paths: ['a.md', 'b.md'],
        owner: expect.objectContaining({ pid: process.pid }),
      },
    ]);

    const again = await runWritePlan(root, config, steps(['b.md'], false));

    expect(again).toMatchObject({ dryRun: false, commit: { committed: true } });
    expect(await git(root, 'log', '--format=%s')).toBe('mem: test both\ninit\n');
    expect(await git(root, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.md\nb.md\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');
    expect(await planRecords(root)).toEqual([]);
  });

  it('a run that writes nothing records nothing and says why with a code', async () => {
    const root = await gitVault({ 'a.md': 'a\n' });
    const result = await runWritePlan(root, defaultConfig(), {
      key: 'test',
      preview: async () => undefined,
      paths: [],
      message: 'mem: test',
      apply: async () => ({ written: [] }),
      nothing: 'nothing new',
    });
    expect(result).toEqual({
      dryRun: false,
      applied: { written: [] },
      commit: { committed: false, code: 'nothing-to-write', reason: 'nothing new' },
    });
    expect(await planRecords(root)).toEqual([]);
  });
});

describe('underPlan', () => {
  it('records, writes and commits under the one write lock: another writer waits for the commit', async () => {
    const root = await gitVault({ 'a.md': 'a\n' });
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const inside = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const run = underPlan(root, defaultConfig(), 'test', async (plan) => {
      locked();
      await plan.record(['a.md'], 'mem: test');
      await writeFile(join(root, 'a.md'), 'changed\n');
      await held;
      const commit = await plan.commit(['a.md'], 'mem: test');
      events.push('committed');
      return commit;
    });
    await inside;
    // Started while the plan holds the lock: it gets the lock only once the commit is made.
    const other = withVaultLock(root, async () => {
      events.push('other writer');
    });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await run).toMatchObject({ committed: true });
    await other;
    expect(events).toEqual(['committed', 'other writer']);
  });
});
