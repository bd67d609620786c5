import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, copyExampleVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-11-30T10:00:00+08:00');

const insight = (title: string, body: string, extra = '') =>
  `---\ntitle: ${title}\ncreated: 2026-11-20T10:00:00+08:00\n${extra}---\n# ${title}\n\n${body}\n`;

const FILES: Record<string, string> = {
  'insights/facts/lactose-intolerant.md': insight(
    'Rain is lactose intolerant',
    'Rain is lactose intolerant and takes her coffee with oat milk ([[2026-11-10#^e1]]).',
    'sources:\n  - "[[2026-11-10#^e1]]"\n  - "[[2026-11-12#^e4]]"\n',
  ),
  'insights/facts/no-dairy.md': insight(
    'Rain is lactose intolerant',
    'Rain is lactose intolerant, and takes her coffee with oat milk ([[2026-11-18#^e2]]).',
    'sources:\n  - "[[2026-11-18#^e2]]"\n',
  ),
  'insights/facts/likes-oolong.md': insight(
    'Rain likes oolong tea',
    'Rain drinks oolong tea in the afternoon ([[2026-11-11#^e3]]).',
  ),
};

describe("reflect's commit", () => {
  it("holds reflect's own change to a note, never a person's uncommitted edit of it", async () => {
    const root = await gitVault(FILES);
    // The person is mid-edit in both notes reflect will touch, and has not committed.
    for (const path of ['insights/facts/no-dairy.md', 'insights/facts/lactose-intolerant.md']) {
      const text = await readFile(join(root, path), 'utf8');
      await writeFile(join(root, path), `${text}\nPRIVATE draft line of the person\n`);
    }
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.reflect({ env: {}, now: NOW });
    expect(result.accepted).toHaveLength(1);
    for (const path of ['insights/facts/no-dairy.md', 'insights/facts/lactose-intolerant.md']) {
      const committed = await git(root, 'show', `HEAD:${path}`);
      const disk = await readFile(join(root, path), 'utf8');
      expect(committed).not.toContain('PRIVATE');
      expect(disk).toContain('PRIVATE draft line of the person');
      // The disk is the commit plus the person's edit, and nothing else.
      expect(disk.replace('\nPRIVATE draft line of the person\n', '')).toBe(committed);
    }
    expect(await readFile(join(root, 'insights/facts/no-dairy.md'), 'utf8')).toContain('status: superseded');
  });
});

describe('consolidation', () => {
  it('offline, supersedes the weaker of two near-identical insights by the other and keeps its sources', async () => {
    const root = await gitVault(FILES);
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.reflect({ env: {}, now: NOW });
    expect(result.mode).toBe('offline');
    expect(result.accepted).toEqual([
      {
        op: 'merge_insights',
        keep: 'insights/facts/lactose-intolerant.md',
        duplicate: 'insights/facts/no-dairy.md',
      },
    ]);
    const duplicate = await readFile(join(root, 'insights/facts/no-dairy.md'), 'utf8');
    expect(duplicate).toContain('status: superseded\nsuperseded_by: "[[lactose-intolerant]]"\n');
    // Nothing is deleted: the duplicate's text is all still there.
    expect(duplicate).toContain('takes her coffee with oat milk ([[2026-11-18#^e2]])');
    const kept = await readFile(join(root, 'insights/facts/lactose-intolerant.md'), 'utf8');
    expect(kept).toContain(
      'sources:\n  - "[[2026-11-10#^e1]]"\n  - "[[2026-11-12#^e4]]"\n  - "[[2026-11-18#^e2]]"\n',
    );
    expect(await git(root, 'log', '-1', '--format=%s')).toBe(
      'mem: reflect offline: 0 commitments, 0 expired, 1 merged\n',
    );
    // A superseded note is no duplicate any more: a second run finds nothing.
    const again = await vault.reflect({ env: {}, now: NOW });
    expect(again.accepted).toEqual([]);
    expect(vault.recall('lactose oat milk', { now: NOW }).hits[0]?.path).toBe(
      'insights/facts/lactose-intolerant.md',
    );
    await vault.close();
  });

  it('offline, merges nothing in vault-example, whose insights are all different facts', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const result = await vault.reflect({ env: {}, now: NOW, dryRun: true });
    expect(result.accepted.filter((op) => op.op === 'merge_insights')).toEqual([]);
    await vault.close();
  });

  it('through a model, as a validated operation that refuses a self-merge and a retired note', async () => {
    const root = await gitVault({
      ...FILES,
      'insights/facts/old.md': insight('Old', 'Old fact.', 'status: superseded\n'),
      'episodes/daily/2026-11-30.md':
        '---\ndate: 2026-11-30\n---\n# 2026-11-30\n\n- 09:00 **Rain:** oat milk please ^e1\n',
    });
    const stub = await startLlmStub(() =>
      JSON.stringify({
        operations: [
          {
            op: 'merge_insights',
            keep: 'insights/facts/no-dairy.md',
            duplicate: 'insights/facts/lactose-intolerant',
          },
          {
            op: 'merge_insights',
            keep: 'insights/facts/likes-oolong.md',
            duplicate: 'insights/facts/likes-oolong.md',
          },
          {
            op: 'merge_insights',
            keep: 'insights/facts/likes-oolong.md',
            duplicate: 'insights/facts/old.md',
          },
          { op: 'merge_insights', keep: 'insights/facts/likes-oolong.md', duplicate: 'profile/user.md' },
          { op: 'mark_reflected', path: 'episodes/daily/2026-11-30.md' },
        ],
      }),
    );
    try {
      const vault = await openVault({ path: root, cache: false });
      const result = await vault.reflect({ now: NOW, llmOptions: { baseURL: stub.baseURL } });
      expect(result.rejected.map((r) => r.reason)).toEqual([
        'an insight cannot be merged into itself',
        'insights/facts/old.md is already superseded',
        'duplicate profile/user.md is in profile/, not in insights/',
      ]);
      const merged = await readFile(join(root, 'insights/facts/lactose-intolerant.md'), 'utf8');
      expect(merged).toContain('superseded_by: "[[no-dairy]]"');
      expect(await git(root, 'status', '--porcelain')).toBe('');
      await vault.close();
    } finally {
      await stub.close();
    }
  });
});
