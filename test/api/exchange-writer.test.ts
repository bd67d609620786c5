import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import { ExchangeWriter } from '../../src/live/exchange-writer.js';
import type { OnPlanned, RememberInput, RememberResult } from '../../src/write/remember.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { WAIT } from '../helpers/wait.js';

const AT = new Date('2026-11-30T09:00:00+08:00');
const DAY = 'episodes/daily/2026-11-30.md';
const open: Vault[] = [];

async function vaultWithGit(files: Record<string, string> = {}): Promise<Vault> {
  const root = await makeVault(files);
  await gitInit(root);
  const vault = await openVault({ path: root });
  open.push(vault);
  return vault;
}

const day = (vault: Vault) => readFile(join(vault.root, DAY), 'utf8');
const journal = (vault: Vault) => readFile(join(vault.root, '.mem/adds.jsonl'), 'utf8').catch(() => '');

afterEach(async () => {
  await Promise.all(open.splice(0).map((vault) => vault.close()));
  await cleanupVaults();
});

describe('vault.addExchange', () => {
  it('writes both sides at once, searchable before it resolves, and commits a burst as one commit', async () => {
    const vault = await vaultWithGit();
    await vault.startExchanges({ commitDelayMs: 60_000, commitMaxWaitMs: 60_000 });
    const names = [
      'Mochi',
      'Tofu',
      'Biscuit',
      'Pepper',
      'Noodle',
      'Maple',
      'Sesame',
      'Pumpkin',
      'Olive',
      'Clover',
    ];
    for (const name of names) {
      const result = await vault.addExchange({
        user: `my cat is called ${name}`,
        assistant: `${name} is a lovely name`,
        at: AT,
      });
      expect(result).toMatchObject({ kept: 2, written: true });
      expect(vault.recall(name, { now: AT }).hits.map((h) => h.text)).toEqual(
        expect.arrayContaining([`my cat is called ${name}`, `${name} is a lovely name`]),
      );
    }
    expect(await git(vault.root, 'log', '--format=%s')).toBe('init\n');
    expect(await vault.writerHealth()).toEqual({ queued: 0, uncommitted: 10 });
    await vault.close();
    expect(await git(vault.root, 'log', '--format=%s')).toBe(`mem: remember 10 exchanges (${DAY})\ninit\n`);
    expect(await git(vault.root, 'status', '--porcelain')).toBe('');
    expect(await journal(vault)).toBe('');
  });

  it('keeps only the user side with commit "user", nothing with "none", and marks a cut-off reply', async () => {
    const vault = await vaultWithGit();
    expect(
      await vault.addExchange({
        user: 'I start the new job Monday',
        assistant: 'Good luck!',
        commit: 'user',
        at: AT,
      }),
    ).toMatchObject({ kept: 1 });
    expect(
      await vault.addExchange({ user: '', assistant: 'Good morning! Slept well?', commit: 'none', at: AT }),
    ).toEqual({ kept: 0, written: false, links: [] });
    await vault.addExchange({
      user: 'tell me about Kyoto',
      assistant: 'Kyoto has two thousand temp',
      interrupted: true,
      at: AT,
    });
    const lines = (await day(vault)).split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- 09:00 **user:** I start the new job Monday ^e1',
      '- 09:00 **user:** tell me about Kyoto ^e2',
      '- 09:00 **assistant:** Kyoto has two thousand temp #interrupted ^e3',
    ]);
  });

  it("commits only its own lines: a person's unsaved edit to the same note stays unstaged", async () => {
    const vault = await vaultWithGit({ [DAY]: '# 2026-11-30\n\n- 08:00 **user:** an early entry ^e1\n' });
    await vault.startExchanges({ commitDelayMs: 60_000, commitMaxWaitMs: 60_000 });
    const path = join(vault.root, DAY);
    // The person adds a private line in their editor and has not committed it.
    await writeFile(path, `${await readFile(path, 'utf8')}my own note, not for git yet\n`);
    await vault.addExchange({ user: 'the plumber comes at noon', at: AT, commit: 'user' });
    await vault.close();
    const committed = await git(vault.root, 'show', `HEAD:${DAY}`);
    expect(committed).toContain('the plumber comes at noon');
    expect(committed).not.toContain('my own note');
    expect(await git(vault.root, 'diff', '--', DAY)).toContain('+my own note, not for git yet');
  });

  it('at start, writes and commits what a killed process had accepted, once', async () => {
    const vault = await vaultWithGit();
    const record = (id: string, text: string) =>
      JSON.stringify({ add: { id, at: AT.toISOString(), entries: [{ text, speaker: 'user' }] } });
    // `a` was written before the kill (its planned line is journaled, its written mark is
    // missing); `b` was not; the last line is torn.
    await vault.remember({ text: 'the plant needs water', speaker: 'user', at: AT });
    const planned = {
      planned: 'a',
      entry: 0,
      path: DAY,
      lines: ['- 09:00 **user:** the plant needs water ^e1'],
    };
    await writeFile(
      join(vault.root, '.mem/adds.jsonl'),
      `${record('a', 'the plant needs water')}\n${JSON.stringify(planned)}\n${record('b', 'the bus pass expires Friday')}\n{"add":{"id":"c","at`,
    );
    await vault.startExchanges();
    const lines = (await day(vault)).split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- 09:00 **user:** the plant needs water ^e1',
      '- 09:00 **user:** the bus pass expires Friday ^e2',
    ]);
    expect((await git(vault.root, 'log', '-1', '--format=%s')).trim()).toBe(
      `mem: remember 2 exchanges (${DAY})`,
    );
    expect(await journal(vault)).toBe('');
  });
});

describe('idempotency belongs to the request, never to the text', () => {
  it('the same words twice in one minute are two entries, and the answer says so truly', async () => {
    const vault = await vaultWithGit();
    for (const _ of [1, 2]) {
      expect(await vault.addExchange({ user: 'ok', assistant: 'sure', at: AT })).toMatchObject({
        kept: 2,
        written: true,
      });
    }
    const lines = (await day(vault)).split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- 09:00 **user:** ok ^e1',
      '- 09:00 **assistant:** sure ^e2',
      '- 09:00 **user:** ok ^e3',
      '- 09:00 **assistant:** sure ^e4',
    ]);
  });

  it('a replay writes an entry once whether or not its append landed, and never takes an equal entry of another add for it', async () => {
    const vault = await vaultWithGit();
    const record = (id: string, text: string) =>
      JSON.stringify({ add: { id, at: AT.toISOString(), entries: [{ text, speaker: 'user' }] } });
    // `a` and `b` say the same; `a` landed; `b` was planned as ^e2 but the kill came before its append.
    await vault.remember({ text: 'ok', speaker: 'user', at: AT });
    const plan = (id: string, line: string) =>
      JSON.stringify({ planned: id, entry: 0, path: DAY, lines: [line] });
    await writeFile(
      join(vault.root, '.mem/adds.jsonl'),
      [
        record('a', 'ok'),
        plan('a', '- 09:00 **user:** ok ^e1'),
        record('b', 'ok'),
        plan('b', '- 09:00 **user:** ok ^e2'),
        '',
      ].join('\n'),
    );
    await vault.startExchanges();
    const lines = (await day(vault)).split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual(['- 09:00 **user:** ok ^e1', '- 09:00 **user:** ok ^e2']);
    expect(await journal(vault)).toBe('');
  });

  it('an add holding a lone surrogate, NUL or ESC is written once, verified, and does not hold up later adds', async () => {
    const vault = await vaultWithGit();
    const first = await vault.addExchange({ user: 'broken \ud800 pair\u0000 and \u001b[31mred', at: AT });
    expect(first).toMatchObject({ kept: 1, written: true });
    const second = await vault.addExchange({ user: 'next one', at: AT });
    expect(second).toMatchObject({ kept: 1, written: true });
    expect(await vault.writerHealth()).toMatchObject({ queued: 0 });
    const lines = (await day(vault)).split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- 09:00 **user:** broken \ufffd pair and red ^e1',
      '- 09:00 **user:** next one ^e2',
    ]);
    // The journal holds what the note holds, so a restart finds nothing left to write.
    await vault.close();
    open.splice(open.indexOf(vault), 1);
    const again = await openVault({ path: vault.root });
    open.push(again);
    await again.startExchanges();
    expect((await day(again)).split('\n').filter((l) => l.startsWith('- '))).toHaveLength(2);
  });
});

describe('ExchangeWriter', () => {
  it('keeps an add it cannot write yet, retries it, and keeps the order of later adds', async () => {
    const root = await makeVault({});
    const written: string[] = [];
    let failures = 2;
    const target = {
      remember: async (inputs: RememberInput[]): Promise<RememberResult[]> => {
        if (failures > 0) {
          failures--;
          throw new Error('LOCKED: another process holds the write lock');
        }
        return inputs.map((input) => {
          written.push(input.text);
          return {
            path: DAY,
            blockId: `e${written.length}`,
            link: '',
            redacted: 0,
            lines: [],
            created: false,
            committed: false,
          };
        });
      },
      holds: async () => false,
      commit: async () => ({ committed: true }),
    };
    const writer = await ExchangeWriter.start(target, join(root, '.mem/adds.jsonl'), { retryMs: 5 });
    const first = await writer.add({ user: 'one', at: AT }, 'exchange');
    expect(first).toMatchObject({ kept: 1, written: false });
    expect(writer.health()).toMatchObject({
      queued: 1,
      lastError: 'LOCKED: another process holds the write lock',
    });
    await vi.waitFor(() => expect(written).toEqual(['one']), WAIT);
    await writer.add({ user: 'two', at: AT }, 'exchange');
    expect(written).toEqual(['one', 'two']);
    expect(writer.health()).toEqual({ queued: 0, uncommitted: 2 });
    await writer.close();
    expect(writer.health()).toEqual({ queued: 0, uncommitted: 0 });
  });

  it('leaves what still cannot be written in the journal at close, for the next start', async () => {
    const root = await makeVault({});
    const file = join(root, '.mem/adds.jsonl');
    const failing = {
      remember: async (): Promise<RememberResult[]> => {
        throw new Error('ENOSPC: no space left on device');
      },
      holds: async () => false,
      commit: async () => ({ committed: true }),
    };
    const writer = await ExchangeWriter.start(failing, file, { retryMs: 60_000 });
    await writer.add({ user: 'keep me', at: AT }, 'exchange');
    await writer.close();
    const texts: string[] = [];
    const again = await ExchangeWriter.start(
      {
        ...failing,
        remember: async (inputs) =>
          inputs.map((input) => {
            texts.push(input.text);
            return {
              path: DAY,
              blockId: 'e1',
              link: '',
              redacted: 0,
              lines: [],
              created: false,
              committed: false,
            };
          }),
      },
      file,
    );
    expect(texts).toEqual(['keep me']);
    await again.close();
    expect(await readFile(file, 'utf8')).toBe('');
  });
});

// The journal writes through a descriptor it keeps open (node:fs writeSync and fsync): each of
// its appends and fsyncs is recorded while `journalIo.ops` is set.
const journalIo = vi.hoisted(() => ({ ops: undefined as string[] | undefined, fds: new Set<number>() }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const openSync = (...args: Parameters<typeof real.openSync>): number => {
    const fd = real.openSync(...args);
    if (String(args[0]).endsWith('adds.jsonl')) journalIo.fds.add(fd);
    else journalIo.fds.delete(fd);
    return fd;
  };
  const writeSync = ((fd: number, data: Buffer, ...rest: never[]) => {
    if (journalIo.ops && journalIo.fds.has(fd))
      journalIo.ops.push(`append ${Object.keys(JSON.parse(String(data)) as object)[0]}`);
    return (real.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof real.writeSync;
  const fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (journalIo.ops && journalIo.fds.has(fd)) journalIo.ops.push('sync');
    real.fsync(fd, callback);
  }) as typeof real.fsync;
  const mocked = { openSync, writeSync, fsync };
  return { ...real, ...mocked, default: { ...real, ...mocked } };
});

describe('the add journal on disk', () => {
  /** Each journal append (its line's kind) and each fsync of the journal's file, in order, while `fn` runs. */
  async function journalOps(fn: () => Promise<unknown>): Promise<string[]> {
    const ops: string[] = [];
    journalIo.ops = ops;
    try {
      await fn();
    } finally {
      journalIo.ops = undefined;
    }
    return ops;
  }

  it('keeps an add and its plan with one fsync before the append, and an add not written with one before its answer', async () => {
    for (const failing of [false, true]) {
      const root = await makeVault({});
      let fail = failing;
      const target = {
        remember: async (inputs: RememberInput[], onPlanned?: OnPlanned): Promise<RememberResult[]> => {
          if (fail) {
            fail = false;
            throw new Error('LOCKED: another process holds the write lock');
          }
          const lines = inputs.map((input, k) => `- ${input.text} ^e${k + 1}`);
          await onPlanned?.(DAY, lines);
          return inputs.map((_, k) => ({
            path: DAY,
            blockId: `e${k + 1}`,
            link: '',
            redacted: 0,
            lines: [lines[k]!],
            created: false,
            committed: false,
          }));
        },
        holds: async () => false,
        commit: async () => ({ committed: true }),
      };
      const writer = await ExchangeWriter.start(target, join(root, '.mem/adds.jsonl'), {
        retryMs: 60_000,
        commitDelayMs: 60_000,
        commitMaxWaitMs: 60_000,
      });
      const ops = await journalOps(() =>
        writer.add({ user: 'words', assistant: 'more', at: AT }, 'exchange'),
      );
      // The plan's fsync keeps the add's line too; an add whose write failed is synced alone.
      if (failing) expect(ops).toEqual(['append add', 'sync']);
      else expect(ops).toEqual(['append add', 'append planned', 'sync', 'append written']);
      await writer.close();
    }
  });
});
