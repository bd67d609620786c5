import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vaultsWithWork } from '../../src/serve/pool/vault-remote.js';
import { git } from '../helpers/git.js';
import { exited, startServe } from '../helpers/serve-process.js';

// Issue 35: a `mem serve --vaults DIR --remote …` restarted after a SIGKILL loads, in the
// background, every vault its predecessor left work in (pool.recover()). A SIGTERM that came while
// it did closed the vaults loaded so far; the recovery went on loading the rest, whose watchers
// then kept the process alive: the server never exited. Here the SIGTERM comes the moment the
// restarted server says it serves, while it recovers four vaults one by one: it must finish the
// recovery (each vault pushed) and exit.

const USERS = ['u0', 'u1', 'u2', 'u3'];
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function add(url: string, user: string): Promise<void> {
  const response = await fetch(`${url}/memory/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: 'companion', user_id: user, user_text: `the kiwi of ${user}` }),
  });
  expect(response.status).toBe(200);
}

/** Whether the add of `user` is on its remote's branch. */
async function inRemote(dir: string, user: string): Promise<boolean> {
  const bare = join(dir, 'git', 'companion', `${user}.git`);
  const found = await git(bare, 'grep', '-l', `the kiwi of ${user}`, 'HEAD', '--').catch(() => '');
  return found !== '';
}

/** Resolves with the exit code; rejects (with the server's output) when it has not exited in `ms`. */
function exitsWithin(server: { child: ChildProcess; output: () => string }, ms: number) {
  let guard: NodeJS.Timeout | undefined;
  return Promise.race([
    exited(server.child),
    new Promise<never>((_, reject) => {
      guard = setTimeout(
        () => reject(new Error(`mem serve did not exit ${ms} ms after SIGTERM:\n${server.output()}`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(guard));
}

describe('a restarted mem serve --vaults --remote, stopped while it recovers', () => {
  it('exits 0 on SIGTERM with every add the killed server accepted pushed to its remote', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-stop-recovering-'));
    dirs.push(dir);
    const vaults = join(dir, 'vaults');
    const template = join(dir, 'template');
    await mkdir(template, { recursive: true });
    // No push after a commit: what the first server accepted is left unpushed when it is killed.
    await writeFile(join(template, 'mem.config.json'), JSON.stringify({ sync: { afterCommit: false } }));
    const args = [
      '--vaults',
      vaults,
      '--template',
      template,
      '--remote',
      join(dir, 'git', '{agent}', '{user}.git'),
      '--create-remote',
      'git init -q --bare "$MEM_REMOTE_URL"',
    ];
    const first = await startServe(vaults, args);
    children.push(first.child);
    for (const user of USERS) await add(first.url, user);
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect((await vaultsWithWork(vaults)).map((v) => v.userId).sort()).toEqual(USERS);

    const second = await startServe(vaults, args);
    children.push(second.child);
    second.child.kill('SIGTERM');
    expect(await exitsWithin(second, 30_000)).toBe(0);
    // The stop finished the recovery: every add the killed server accepted is on its remote, where
    // the servers that serve its user now read it, and nothing is left for a next start.
    for (const user of USERS) expect(await inRemote(dir, user)).toBe(true);
    expect(await vaultsWithWork(vaults)).toEqual([]);
  }, 90_000);
});
