import type { ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { vaultsWithWork } from '../../src/serve/pool/vault-remote.js';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { exited, startServe } from '../helpers/serve-process.js';

// A `mem serve` killed at every crash point in turn (MEM_TEST_CRASH_AFTER=n, n = 1, 2, … until a
// run passes them all) while it takes two adds and stops: the journal's appends, its emptying, the
// day note's write, the group commit and, for a `--vaults` server with remotes, the syncs that push.
// After each kill a second server starts and stops. Then every add that was answered is in the day
// note once (on the remote's branch, for a pool), an add the kill cut off is there at most once,
// everything is committed, and nothing is left that a server would count as a killed server's work:
// a journal left holding only committed adds (a kill between its last line and its emptying) made
// every later start "recover" the vault again, and a stopped server's check fail (CI, stop 40).

const AT = '2026-11-30T09:00:00+08:00';
const DAY = 'episodes/daily/2026-11-30.md';
const ADDS = ['the first kiwi', 'the second kiwi'];
/** A run that passes more points than this has not been cut short by any of them: the loop is broken */
const MAX_POINTS = 200;
/** `git status` of a temp file of mem's (tempPathFor's name) */
const LEFT_TEMP = /^\?\? (?:.*\/)?\.[^/]+\.\d+\.[0-9a-f]{12}\.tmp$/;
/** The reliability table's row (docs/reliability.md) */
const CLASS = 'mem serve killed at every step of two adds';
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await cleanupVaults();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * Where the loop runs: a fresh copy of a served vault for each run, the server's arguments, the
 * body fields of an add, and what the checks read.
 */
interface Setup {
  /** A new copy for run `n`: its folder, the server's arguments */
  copy(n: number): Promise<{ dir: string; args: string[] }>;
  ids: Record<string, string>;
  /** The day note as the durable copy holds it: the vault's file, or the remote branch's */
  day(dir: string): Promise<string>;
  /** The vault's own folder (its journal, its work tree) */
  vault(dir: string): string;
  /** Left for a next start, as a `--vaults` server would count it */
  work(dir: string): Promise<unknown[]>;
}

/** Adds each text in turn until the server dies; returns the texts it answered. */
async function addAll(url: string, ids: Record<string, string>, texts: string[]): Promise<string[]> {
  const answered: string[] = [];
  for (const text of texts) {
    const response = await fetch(`${url}/memory/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ids, user_text: text, assistant_text: `noted: ${text}`, at: AT }),
    }).catch(() => undefined);
    if (response?.status !== 200) break;
    answered.push(text);
  }
  return answered;
}

/** One server's life: started (with `env`), the adds when asked, SIGTERM. Whether a crash point killed it. */
async function serveOnce(
  dir: string,
  args: string[],
  env: Record<string, string>,
  ids?: Record<string, string>,
  texts = ADDS,
) {
  let started: Awaited<ReturnType<typeof startServe>>;
  try {
    started = await startServe(dir, args, env);
  } catch {
    return { answered: [] as string[], killed: true }; // killed while it opened the vault
  }
  children.push(started.child);
  const answered = ids ? await addAll(started.url, ids, texts) : [];
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
  const code = await exited(started.child);
  return { answered, killed: started.child.signalCode === 'SIGKILL', code, output: started.output() };
}

const count = (text: string, what: string) => text.split(what).length - 1;

/** Kills at point 1, 2, … until a run passes every point; checks each run's outcome. Returns the points. */
async function killAtEveryPoint(setup: Setup): Promise<number> {
  for (let n = 1; n <= MAX_POINTS; n++) {
    const { dir, args } = await setup.copy(n);
    const crashed = await serveOnce(dir, args, { MEM_TEST_CRASH_AFTER: String(n) }, setup.ids);
    const after = await serveOnce(dir, args, {});
    const where = `killed at crash point ${n}`;
    expect(after.code, `${where}; the next server:\n${after.output}`).toBe(0);
    const day = await setup.day(dir);
    for (const text of ADDS) {
      const times = count(day, text) - count(day, `noted: ${text}`);
      if (crashed.answered.includes(text)) expect(times, `${where}: "${text}" was answered`).toBe(1);
      else expect(times, `${where}: "${text}" was cut off`).toBeLessThanOrEqual(1);
    }
    // Untracked: only the temp file of a write the kill cut short, which mem never reads and a
    // walk removes once it is a minute old (temp-name.ts).
    const status = (await git(setup.vault(dir), 'status', '--porcelain')).split('\n').filter(Boolean);
    expect(
      status.filter((line) => !LEFT_TEMP.test(line)),
      where,
    ).toEqual([]);
    const journal = await stat(join(setup.vault(dir), '.mem/adds.jsonl')).catch(() => undefined);
    expect(journal?.size ?? 0, where).toBe(0);
    expect(await setup.work(dir), where).toEqual([]);
    await rm(dir, { recursive: true, force: true });
    // The run passed every point: both adds were answered.
    if (!crashed.killed) {
      expect(crashed.answered, where).toEqual(ADDS);
      return n - 1;
    }
  }
  throw new Error(`a run still passed a crash point after ${MAX_POINTS}`);
}

async function workDir(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'mem-add-crash-'));
  dirs.push(work);
  return work;
}

describe('mem serve killed at every crash point of an add', () => {
  it('one vault: keeps every answered add once, commits it, and leaves no work for the next start', async () => {
    const template = await makeVault({});
    await gitInit(template);
    // Opened once, so that each run starts from a saved index as a server usually does.
    expect((await serveOnce(template, ['--vault', template], {})).code).toBe(0);
    const work = await workDir();
    const points = await killAtEveryPoint({
      copy: async (n) => {
        const dir = join(work, `v${n}`);
        await cp(template, dir, { recursive: true });
        return { dir, args: ['--vault', dir] };
      },
      ids: {},
      day: (dir) => readFile(join(dir, DAY), 'utf8').catch(() => ''),
      vault: (dir) => dir,
      work: async () => [],
    });
    expect(points).toBeGreaterThan(5);
    await reportReliability({ class: CLASS, command: 'one vault', kills: points, lost: 0 });
  }, 600_000);

  it('a --vaults server with remotes: every answered add reaches the remote once, and nothing is left', async () => {
    const work = await workDir();
    const ids = { agent_id: 'companion', user_id: 'u1' };
    const argsFor = (dir: string) => [
      '--vaults',
      join(dir, 'vaults'),
      '--template',
      join(dir, 'template'),
      '--remote',
      join(dir, 'git', '{agent}', '{user}.git'),
      '--create-remote',
      'git init -q --bare "$MEM_REMOTE_URL"',
    ];
    // The user's vault made (cloned from its new remote) and pushed once, by a server that stopped.
    const prepared = join(work, 'prepared');
    await mkdir(join(prepared, 'template'), { recursive: true });
    await writeFile(join(prepared, 'template', 'mem.config.json'), '{}');
    const first = await serveOnce(prepared, argsFor(prepared), {}, ids, ['the entry before']);
    expect(first.code).toBe(0);
    expect(first.answered).toEqual(['the entry before']);
    const vaultOf = (dir: string) => join(dir, 'vaults', 'companion', 'u1');
    const remoteOf = (dir: string) => join(dir, 'git', 'companion', 'u1.git');
    const points = await killAtEveryPoint({
      copy: async (n) => {
        const dir = join(work, `p${n}`);
        await cp(prepared, dir, { recursive: true });
        await git(vaultOf(dir), 'remote', 'set-url', 'origin', remoteOf(dir));
        return { dir, args: argsFor(dir) };
      },
      ids,
      day: (dir) => git(remoteOf(dir), 'show', `HEAD:${DAY}`).catch(() => ''),
      vault: vaultOf,
      work: (dir) => vaultsWithWork(join(dir, 'vaults')),
    });
    expect(points).toBeGreaterThan(5);
    await reportReliability({ class: CLASS, command: '--vaults with remotes', kills: points, lost: 0 });
  }, 900_000);
});
