// `mem serve --vaults DIR --max-vaults N`: the built server keeps at most N vaults loaded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { postJson } from '../helpers/post-json.js';
import { exited, startServe } from '../helpers/serve-process.js';
import { WAIT } from '../helpers/wait.js';

let dirs: string[] = [];
const children: Array<Awaited<ReturnType<typeof startServe>>['child']> = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-max-vaults-'));
  dirs.push(dir);
  return dir;
}

const post = postJson;

describe('mem serve --max-vaults', () => {
  it('keeps at most N vaults loaded, unloading the least recently used one, whose memories come back', async () => {
    const dir = await tempDir();
    const server = await startServe(dir, ['--vaults', dir, '--max-vaults', '1']);
    children.push(server.child);
    expect(server.output()).toContain('(at most 1 loaded at once)');
    const add = (user: string, text: string) =>
      post(server.url, '/memory/add', {
        agent_id: 'rain',
        user_id: user,
        user_text: text,
        assistant_text: 'Noted.',
      });
    expect((await add('alice', 'I play the cello')).status).toBe(200);
    expect((await add('bob', 'I play the drums')).status).toBe(200);
    await vi.waitFor(
      () => expect(server.output()).toContain('mem: unloaded least recently used vault rain/alice'),
      WAIT,
    );
    const search = await post(server.url, '/memory/search', {
      agent_id: 'rain',
      user_id: 'alice',
      query: 'cello',
    });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.json['results'])).toContain('I play the cello');
    await vi.waitFor(
      () => expect(server.output()).toContain('mem: unloaded least recently used vault rain/bob'),
      WAIT,
    );
  });

  it('refuses --max-vaults without --vaults, and a count that is not a positive integer', async () => {
    const dir = await tempDir();
    await expect(startServe(dir, ['--vault', dir, '--max-vaults', '4'])).rejects.toThrow(
      /--max-vaults is for --vaults/,
    );
    await expect(startServe(dir, ['--vaults', dir, '--max-vaults', '0'])).rejects.toThrow(/--max-vaults/);
  });

  it('refuses --decoded-notes-mib without --vaults, and a size that is not a positive integer', async () => {
    const dir = await tempDir();
    await expect(startServe(dir, ['--vault', dir, '--decoded-notes-mib', '8'])).rejects.toThrow(
      /--decoded-notes-mib is for --vaults/,
    );
    await expect(startServe(dir, ['--vaults', dir, '--decoded-notes-mib', '-1'])).rejects.toThrow(
      /--decoded-notes-mib/,
    );
  });
});
