import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { git, gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { exited, startServe } from '../helpers/serve-process.js';

// A `mem serve` killed at every crash point in turn (MEM_TEST_CRASH_AFTER=n, n = 1, 2, … until a
// run passes them all) while it takes two adds and stops: the journal's appends, its emptying, the
// day note's write, the group commit. After each kill a second server starts and stops. Then every
// add that was answered is in the day note once, an add the kill cut off is there at most once,
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
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await cleanupVaults();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Adds each text in turn until the server dies; returns the texts it answered. */
async function addAll(url: string): Promise<string[]> {
  const answered: string[] = [];
  for (const text of ADDS) {
    const response = await fetch(`${url}/memory/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_text: text, assistant_text: `noted: ${text}`, at: AT }),
    }).catch(() => undefined);
    if (response?.status !== 200) break;
    answered.push(text);
  }
  return answered;
}

/** One server's life: started (with `env`), the adds, SIGTERM. Whether a crash point killed it. */
async function serveOnce(root: string, env: Record<string, string>) {
  let started: Awaited<ReturnType<typeof startServe>>;
  try {
    started = await startServe(root, ['--vault', root], env);
  } catch {
    return { answered: [] as string[], killed: true }; // killed while it opened the vault
  }
  children.push(started.child);
  const answered = env['MEM_TEST_CRASH_AFTER'] ? await addAll(started.url) : [];
  if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
  const code = await exited(started.child);
  return { answered, killed: started.child.signalCode === 'SIGKILL', code, output: started.output() };
}

const count = (text: string, what: string) => text.split(what).length - 1;

describe('mem serve killed at every crash point of an add', () => {
  it('keeps every answered add once, commits it, and leaves no work for the next start', async () => {
    const template = await makeVault({});
    await gitInit(template);
    // Opened once, so that each run starts from a saved index as a server usually does.
    expect((await serveOnce(template, {})).code).toBe(0);
    const work = await mkdtemp(join(tmpdir(), 'mem-add-crash-'));
    dirs.push(work);
    let points = 0;
    for (let n = 1; n <= MAX_POINTS; n++) {
      const root = join(work, `v${n}`);
      await cp(template, root, { recursive: true });
      const crashed = await serveOnce(root, { MEM_TEST_CRASH_AFTER: String(n) });
      const after = await serveOnce(root, {});
      const where = `killed at crash point ${n}`;
      expect(after.code, `${where}; the next server:\n${after.output}`).toBe(0);
      const day = await readFile(join(root, DAY), 'utf8').catch(() => '');
      for (const text of ADDS) {
        const times = count(day, `${text}`) - count(day, `noted: ${text}`);
        if (crashed.answered.includes(text)) expect(times, `${where}: "${text}" was answered`).toBe(1);
        else expect(times, `${where}: "${text}" was cut off`).toBeLessThanOrEqual(1);
      }
      // Untracked: only the temp file of a write the kill cut short, which mem never reads and a
      // walk removes once it is a minute old (temp-name.ts).
      const status = (await git(root, 'status', '--porcelain')).split('\n').filter(Boolean);
      expect(
        status.filter((line) => !LEFT_TEMP.test(line)),
        where,
      ).toEqual([]);
      const journal = await stat(join(root, '.mem/adds.jsonl')).catch(() => undefined);
      expect(journal?.size ?? 0, where).toBe(0);
      await rm(root, { recursive: true, force: true });
      if (!crashed.killed) {
        // The run passed every point: both adds were answered, and there were points to kill at.
        expect(crashed.answered, where).toEqual(ADDS);
        points = n - 1;
        break;
      }
    }
    expect(points).toBeGreaterThan(5);
  }, 600_000);
});
