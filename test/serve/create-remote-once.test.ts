import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchVault, remoteHasHistory } from '../../src/serve/pool/vault-remote.js';
import { WAIT } from '../helpers/wait.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

let dir: string;
afterEach(async () => {
  // The gate first: a create still waiting at it ends.
  await writeFile(join(dir, 'gate'), '').catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe("a new user's remote, asked for by a read and an add at once", () => {
  it('is created by one run of the create command, which both wait for', async () => {
    dir = await mkdtemp(join(tmpdir(), 'memvault-create-once-'));
    const gate = join(dir, 'gate');
    const log = join(dir, 'runs');
    // A second run while the first holds `.creating` fails, as a second `git init` on the config lock.
    const create = [
      `echo run >> '${log}'`,
      'mkdir -p "$(dirname "$MEM_REMOTE_URL")"',
      'mkdir "$MEM_REMOTE_URL.creating" || exit 1',
      `while [ ! -f '${gate}' ]; do sleep 0.05; done`,
      'git init -q --bare "$MEM_REMOTE_URL"',
      'rmdir "$MEM_REMOTE_URL.creating"',
    ].join('; ');
    const remote = { template: join(dir, 'git', '{agent}', '{user}.git'), create };
    const read = remoteHasHistory(remote, 'companion', 'new');
    const add = fetchVault(join(dir, 'vaults', 'companion', 'new'), remote, 'companion', 'new');
    await vi.waitFor(
      async () => expect(await exists(join(dir, 'git', 'companion', 'new.git.creating'))).toBe(true),
      WAIT,
    );
    await writeFile(gate, '');
    expect(await read).toBe(false);
    expect(await add).toBe('empty');
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['run']);
  }, 30_000);
});
