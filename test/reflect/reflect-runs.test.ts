import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { type StubReply, startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';
import { WAIT } from '../helpers/wait.js';

afterAll(cleanupVaults);

const FILES: Record<string, string> = {
  'profile/user.md': '---\ntitle: Rain\n---\n# Rain\n\n## Likes\n- Oolong tea.\n',
  'episodes/daily/2026-11-29.md':
    '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 20:00 **Rain:** 我开始学攀岩了 ^e1\n',
  'episodes/daily/2026-11-30.md':
    '---\ndate: 2026-11-30\n---\n# 2026-11-30\n\n- 09:00 **Rain:** I bought climbing shoes ^e1\n',
};

/** Operations for the 2026-11-29 episode: a new insight, a profile fact, and the day marked read. */
const OPS = JSON.stringify({
  operations: [
    {
      op: 'create_insight',
      path: 'insights/patterns/started-bouldering.md',
      title: 'Rain started bouldering',
      body: 'She enjoys it ([[2026-11-29#^e1]]).',
      sources: ['[[2026-11-29#^e1]]'],
    },
    {
      op: 'update_profile_fact',
      path: 'profile/user.md',
      heading: 'Likes',
      fact: '- Bouldering ([[2026-11-29#^e1]]).',
      sources: ['[[2026-11-29#^e1]]'],
    },
    { op: 'mark_reflected', path: 'episodes/daily/2026-11-29.md' },
  ],
});

async function withStub<T>(
  reply: () => StubReply,
  run: (baseURL: string, stub: Awaited<ReturnType<typeof startLlmStub>>) => Promise<T>,
): Promise<T> {
  const stub = await startLlmStub(reply);
  try {
    return await run(stub.baseURL, stub);
  } finally {
    await stub.close();
  }
}

const reflectCli = (root: string, baseURL: string, now: string, ...more: string[]) =>
  mem(['reflect', '--vault', root, '--base-url', baseURL, '--now', now, '--max-episodes', '1', ...more]);

describe('the cost of a reflect run', () => {
  it("prints the API's token usage, puts it in the commit message, and counts it for the day", async () => {
    const root = await gitVault(FILES);
    const run = await withStub(
      () => ({ content: OPS, usage: { prompt_tokens: 1234, completion_tokens: 56 } }),
      (baseURL) => reflectCli(root, baseURL, '2026-11-30T10:00:00+08:00'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cost: 1234 prompt + 56 completion tokens\n');
    expect(await git(root, 'log', '-1', '--format=%B')).toBe(
      'mem: reflect 1 episode, 3 operations\n\nmodel gpt-4o-mini: 1234 prompt + 56 completion tokens\n\n',
    );
    expect(JSON.parse(await readFile(join(root, '.mem/reflect-usage.json'), 'utf8'))).toEqual({
      version: 1,
      day: '2026-11-30',
      promptTokens: 1234,
      completionTokens: 56,
    });
  });

  it("skips a run that would pass reflect.maxTokensPerDay, counted per day in the vault's zone", async () => {
    const root = await makeVault(FILES, {
      config: { timezone: 'Asia/Shanghai', git: { autoCommit: false }, reflect: { maxTokensPerDay: 50_000 } },
    });
    await withStub(
      () => ({ content: OPS, usage: { prompt_tokens: 49_000, completion_tokens: 990 } }),
      async (baseURL, stub) => {
        const first = await reflectCli(root, baseURL, '2026-11-30T23:30:00+08:00');
        expect(first.stdout).toContain(
          'cost: 49000 prompt + 990 completion tokens (49990 of 50000 today, 2026-11-30)',
        );

        // 10 tokens left: any prompt passes them, so the model is not asked.
        const second = await reflectCli(root, baseURL, '2026-11-30T23:50:00+08:00');
        expect(second.code).toBe(0);
        expect(second.stdout).toMatch(
          /^skipped: the daily budget would be passed: 49990 of reflect\.maxTokensPerDay 50000 tokens used on 2026-11-30 \(Asia\/Shanghai\), and this run's prompt alone is about \d+; it resets at midnight, or raise reflect\.maxTokensPerDay in mem\.config\.json\n$/,
        );
        expect(stub.requests).toHaveLength(1);

        // 00:10 in Shanghai is still 2026-11-30 in UTC, but the vault's day is a new one.
        const third = await reflectCli(root, baseURL, '2026-12-01T00:10:00+08:00');
        expect(third.stdout).toContain('(49990 of 50000 today, 2026-12-01)');
        expect(stub.requests).toHaveLength(2);
      },
    );
  });
});

describe('mem reflect --review', () => {
  it("commits the run on mem/reflect-<date> and leaves the user's branch, HEAD and files alone", async () => {
    const root = await gitVault(FILES);
    // An edit of the user's own, not committed: it must stay theirs, and out of the review commit.
    await writeFile(join(root, 'profile/user.md'), `${FILES['profile/user.md']}- Jasmine tea (draft).\n`);
    const branch = (await git(root, 'symbolic-ref', '--short', 'HEAD')).trim();
    const head = (await git(root, 'rev-parse', 'HEAD')).trim();
    const status = await git(root, 'status', '--porcelain');
    const userNote = await readFile(join(root, 'profile/user.md'), 'utf8');

    const run = await withStub(
      () => ({ content: OPS, usage: { prompt_tokens: 900, completion_tokens: 40 } }),
      (baseURL) => reflectCli(root, baseURL, '2026-11-30T10:00:00+08:00', '--review'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cost: 900 prompt + 40 completion tokens\n');
    expect(run.stdout).toMatch(/committed [0-9a-f]{8} on branch mem\/reflect-2026-11-30 \(3 file\(s\)\)/);
    expect(run.stdout).toContain('  merge: git merge mem/reflect-2026-11-30\n');

    expect((await git(root, 'symbolic-ref', '--short', 'HEAD')).trim()).toBe(branch);
    expect((await git(root, 'rev-parse', 'HEAD')).trim()).toBe(head);
    expect(await git(root, 'status', '--porcelain')).toBe(status);
    expect(await readFile(join(root, 'profile/user.md'), 'utf8')).toBe(userNote);
    expect(existsSync(join(root, 'insights/patterns/started-bouldering.md'))).toBe(false);
    expect(await readFile(join(root, 'episodes/daily/2026-11-29.md'), 'utf8')).toBe(
      FILES['episodes/daily/2026-11-29.md'],
    );

    // The branch is HEAD plus exactly the run's commit.
    expect((await git(root, 'rev-list', `HEAD..mem/reflect-2026-11-30`)).trim().split('\n')).toHaveLength(1);
    expect((await git(root, 'rev-parse', 'mem/reflect-2026-11-30^')).trim()).toBe(head);
    expect(
      (await git(root, 'diff', '--name-only', 'HEAD', 'mem/reflect-2026-11-30')).trim().split('\n'),
    ).toEqual(['episodes/daily/2026-11-29.md', 'insights/patterns/started-bouldering.md', 'profile/user.md']);
    const reviewed = await git(root, 'show', 'mem/reflect-2026-11-30:profile/user.md');
    expect(reviewed).toBe(
      '---\ntitle: Rain\n---\n# Rain\n\n## Likes\n- Oolong tea.\n- Bouldering ([[2026-11-29#^e1]]).\n',
    );
    expect(await git(root, 'log', '-1', '--format=%B', 'mem/reflect-2026-11-30')).toContain(
      'model gpt-4o-mini: 900 prompt + 40 completion tokens',
    );
  });

  it('takes the next free name when the day already has a review branch, and refuses --dry-run with it', async () => {
    const root = await gitVault(FILES);
    await withStub(
      () => OPS,
      async (baseURL) => {
        await reflectCli(root, baseURL, '2026-11-30T10:00:00+08:00', '--review');
        const again = await reflectCli(root, baseURL, '2026-11-30T11:00:00+08:00', '--review');
        expect(again.stdout).toContain('on branch mem/reflect-2026-11-30-2 ');
        const both = await reflectCli(root, baseURL, '2026-11-30T11:00:00+08:00', '--review', '--dry-run');
        expect(both.code).toBe(2);
        expect(both.stderr).toContain('--review cannot be used with --dry-run (a dry run writes nothing)');
      },
    );
    expect(
      (await git(root, 'branch', '--list', 'mem/*'))
        .split('\n')
        .map((b) => b.trim())
        .filter(Boolean),
    ).toEqual(['mem/reflect-2026-11-30', 'mem/reflect-2026-11-30-2']);
  });

  it('refuses --review outside a git repository, writing nothing', async () => {
    const root = await makeVault(FILES);
    const run = await withStub(
      () => OPS,
      (baseURL) => reflectCli(root, baseURL, '2026-11-30T10:00:00+08:00', '--review'),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--review needs git');
    expect(existsSync(join(root, 'insights'))).toBe(false);
  });
});

describe('an abandoned run', () => {
  it('stops waiting for a model that hangs and writes nothing', async () => {
    const root = await gitVault(FILES);
    await withStub(
      () => ({ hang: true }),
      async (baseURL, stub) => {
        const vault = await openVault({ path: root, cache: false });
        const controller = new AbortController();
        const run = vault.reflect({
          now: new Date('2026-11-30T10:00:00+08:00'),
          llmOptions: { baseURL },
          signal: controller.signal,
        });
        await vi.waitFor(() => expect(stub.hanging()).toBe(1), WAIT);
        controller.abort();
        await expect(run).rejects.toThrow(
          'the model call was abandoned (the run was stopped); nothing was written',
        );
        await vault.close();
      },
    );
    expect(await git(root, 'log', '--format=%s')).toBe('init\n');
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });
});
