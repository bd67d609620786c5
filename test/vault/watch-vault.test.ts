import { spawn } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import { loadIndexCache } from '../../src/indexing/index-cache.js';
import type { VaultChange, VaultWatcher, WatchVaultOptions } from '../../src/vault/watch-vault.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { WAIT } from '../helpers/wait.js';

const paths = (vault: Vault, query: string) => vault.recall(query).hits.map((h) => h.path);
const backlinkSources = (vault: Vault, ref: string) => {
  try {
    return vault.backlinks(ref).map((e) => e.from);
  } catch {
    return [];
  }
};

let watchers: VaultWatcher[] = [];

async function startWatching(
  files: Record<string, string>,
  options: WatchVaultOptions = {},
): Promise<{ root: string; vault: Vault; watcher: VaultWatcher; changes: VaultChange[] }> {
  const root = await makeVault(files);
  const vault = await openVault({ path: root });
  const changes: VaultChange[] = [];
  const watcher = await vault.watch({ onChange: (c) => changes.push(c), ...options });
  expect(vault.changeTracking.tracked).toBe(options.tracked !== false && process.platform === 'linux');
  watchers.push(watcher);
  return { root, vault, watcher, changes };
}

afterEach(async () => {
  await Promise.all(watchers.map((w) => w.close()));
  watchers = [];
  await cleanupVaults();
});

// Both ways of watching: folder watches with a barrier (Linux), and chokidar's watch per file
// (every other platform, and vaults that follow symlinks).
describe.each([
  { how: 'tracked folders', tracked: true },
  { how: 'chokidar', tracked: false },
])('watchVault ($how)', ({ tracked }) => {
  const start = (files: Record<string, string>, options: WatchVaultOptions = {}) =>
    startWatching(files, { tracked, ...options });

  it('reflects a note written, edited, renamed and deleted on disk in recall and backlinks', async () => {
    const { root, vault, changes } = await start({ 'insights/tokyo.md': '# Tokyo\nA large city.\n' });

    const written = Date.now();
    await writeFile(join(root, 'insights/trip.md'), '# Trip\nWe flew to [[tokyo]] for ramen.\n');
    await vi.waitFor(() => expect(paths(vault, 'ramen')).toContain('insights/trip.md'), WAIT);
    console.info(`watcher: write to searchable in ${Date.now() - written} ms`);
    expect(backlinkSources(vault, 'insights/tokyo.md')).toEqual(['insights/trip.md']);

    await writeFile(join(root, 'insights/trip.md'), '# Trip\nWe flew to [[tokyo]] for sushi.\n');
    await vi.waitFor(() => expect(paths(vault, 'sushi')).toContain('insights/trip.md'), WAIT);
    expect(paths(vault, 'ramen')).toEqual([]);

    await rename(join(root, 'insights/trip.md'), join(root, 'insights/journey.md'));
    await vi.waitFor(() => expect(paths(vault, 'sushi')).toContain('insights/journey.md'), WAIT);
    await vi.waitFor(() => expect(vault.paths().includes('insights/trip.md')).toBe(false), WAIT);
    expect(backlinkSources(vault, 'insights/tokyo.md')).toEqual(['insights/journey.md']);

    await rm(join(root, 'insights/journey.md'));
    await vi.waitFor(() => expect(vault.paths().includes('insights/journey.md')).toBe(false), WAIT);
    expect(paths(vault, 'sushi')).toEqual([]);
    expect(backlinkSources(vault, 'insights/tokyo.md')).toEqual([]);

    expect(changes.filter((c) => c.path === 'insights/trip.md').map((c) => c.kind)).toEqual([
      'added',
      'changed',
      'removed',
    ]);
    expect(changes.filter((c) => c.path === 'insights/journey.md').map((c) => c.kind)).toEqual([
      'added',
      'removed',
    ]);
  });

  it('resolves a link that was unresolved once its target appears', async () => {
    const { root, vault } = await start({ 'insights/trip.md': '# Trip\nWe went to [[Kyoto]].\n' });
    expect(vault.links('insights/trip.md').map((e) => e.to)).toEqual([undefined]);
    await writeFile(join(root, 'insights/Kyoto.md'), '# Kyoto\nTemples.\n');
    await vi.waitFor(() => expect(vault.paths().includes('insights/Kyoto.md')).toBe(true), WAIT);
    expect(vault.links('insights/trip.md').map((e) => e.to)).toEqual(['insights/Kyoto.md']);
    expect(backlinkSources(vault, 'insights/Kyoto.md')).toEqual(['insights/trip.md']);
  });

  it('takes an atomic save (temp dotfile renamed over the note) as one change and never indexes the temp file', async () => {
    const { root, vault, changes } = await start({ 'profile/user.md': '# User\nLikes tea.\n' });
    const tmp = join(root, 'profile/.user.md.tmp');
    await writeFile(tmp, '# User\nLikes coffee now.\n');
    await rename(tmp, join(root, 'profile/user.md'));
    await vi.waitFor(() => expect(paths(vault, 'coffee')).toContain('profile/user.md'), WAIT);
    expect(paths(vault, 'tea')).toEqual([]);
    expect(vault.paths()).toEqual(['profile/user.md']);
    expect(changes).toEqual([{ path: 'profile/user.md', kind: 'changed' }]);
  });

  it('ignores dot folders, node_modules and files that are not Markdown', async () => {
    const { root, vault } = await start({});
    await mkdir(join(root, '.obsidian'), { recursive: true });
    await mkdir(join(root, 'node_modules/pkg'), { recursive: true });
    await writeFile(join(root, '.obsidian/workspace.md'), 'zebra\n');
    await writeFile(join(root, 'node_modules/pkg/readme.md'), 'zebra\n');
    await mkdir(join(root, 'insights'));
    await writeFile(join(root, 'insights/list.txt'), 'zebra\n');
    await writeFile(join(root, 'insights/zebra.md'), '# Zebra\nzebra\n');
    await vi.waitFor(() => expect(vault.paths().includes('insights/zebra.md')).toBe(true), WAIT);
    expect(vault.paths()).toEqual(['insights/zebra.md']);
  });

  it('indexes a burst of 500 files with far fewer refreshes than files', async () => {
    const { root, vault } = await start({});
    // The watcher applies each batch with one call of this private step of the live index.
    const { live } = vault as unknown as { live: { applyChanges: (paths: string[]) => Promise<unknown> } };
    const refresh = vi.spyOn(live, 'applyChanges');
    await mkdir(join(root, 'insights/burst'), { recursive: true });
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        writeFile(join(root, `insights/burst/n${i}.md`), `# Note ${i}\nmarker${i} quokka\n`),
      ),
    );
    await vi.waitFor(() => expect(vault.noteCount).toBe(500), WAIT);
    console.info(
      `watcher: 500 files indexed in ${Date.now() - started} ms with ${refresh.mock.calls.length} refreshes`,
    );
    expect(paths(vault, 'marker0')[0]).toEqual('insights/burst/n0.md');
    expect(paths(vault, 'marker499')[0]).toEqual('insights/burst/n499.md');
    expect(refresh.mock.calls.length).toBeLessThan(50);
  });

  it('saves the cache after a quiet period, so the next open has nothing to re-read', async () => {
    const { root } = await start({ 'insights/a.md': '# A\n' }, { quietMs: 50 });
    await writeFile(join(root, 'insights/b.md'), '# B\nquiet\n');
    // The cache is saved once the change is in and 50 ms passed without another.
    await vi.waitFor(async () => {
      const cached = await loadIndexCache(root);
      expect(cached.status === 'loaded' && cached.index.notes.has('insights/b.md')).toBe(true);
    }, WAIT);
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 2 });
  });

  it('saves the cache on close', async () => {
    const { root, vault, watcher } = await start({ 'insights/a.md': '# A\n' }, { quietMs: 60_000 });
    await writeFile(join(root, 'insights/b.md'), '# B\n');
    await vi.waitFor(() => expect(vault.paths().includes('insights/b.md')).toBe(true), WAIT);
    await watcher.close();
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 2 });
  });

  it('on a larger vault, leaves one change for the next open after a quiet period, and saves it on close', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`insights/n${i}.md`, `# N${i}\n`]),
    );
    const { root, vault, watcher } = await start(files, { quietMs: 1 });
    // The watcher's quiet-period save goes through this private step of the live index (on the Vault's queue).
    const { live } = vault as unknown as { live: { saveIfStaleNow: () => Promise<void> } };
    const quietSave = vi.spyOn(live, 'saveIfStaleNow');
    await writeFile(join(root, 'insights/n1.md'), '# N1\nzeppelin\n');
    await vi.waitFor(() => expect(vault.recall('zeppelin').hits.length).toBeGreaterThan(0), WAIT);
    // Wait for the quiet-period save to decide: one stale note of 300 is not worth a 44 MiB write.
    await vi.waitFor(() => expect(quietSave).toHaveBeenCalled(), WAIT);
    await quietSave.mock.results[0]?.value;
    const cached = await loadIndexCache(root);
    expect(cached.status === 'loaded' && cached.index.text.search('zeppelin').length).toBe(0);
    expect(vault.unsavedChanges).toBe(1);
    await watcher.close();
    expect(vault.unsavedChanges).toBe(0);
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh).toMatchObject({ changed: 0, unchanged: 300 });
  });

  it('says it is idle when no refresh is running', async () => {
    const { watcher } = await start({});
    expect(await watcher.whenIdle(0)).toBe(true);
  });
});

/**
 * Starts the built `mem watch` (`npm run build` first: signals only make sense for a real process),
 * waits until it watches, runs `act`, then stops it with SIGINT and returns its exit code and output.
 */
async function runWatch(root: string, args: string[], act: (out: () => string) => Promise<void>) {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/cli/main.js'), 'watch', ...args, '--vault', root],
    {
      env: { PATH: process.env['PATH'] },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    // Starting a process on a busy machine can take seconds.
    await vi.waitFor(() => expect(stderr).toContain('mem: watching'), WAIT);
    await act(() => stdout);
  } finally {
    child.kill('SIGINT');
  }
  return { code: await exited, stdout };
}

describe('mem watch', () => {
  it('prints one line per change and saves the cache when stopped with SIGINT', async () => {
    const root = await makeVault({ 'insights/a.md': '# A\n' });
    const result = await runWatch(root, [], async (out) => {
      await writeFile(join(root, 'insights/b.md'), '# B\n');
      await vi.waitFor(() => expect(out()).toContain('added insights/b.md\n'), WAIT);
      await rm(join(root, 'insights/a.md'));
      await vi.waitFor(() => expect(out()).toContain('removed insights/a.md\n'), WAIT);
    });
    expect(result).toEqual({ code: 0, stdout: 'added insights/b.md\nremoved insights/a.md\n' });
    const reopened = await openVault({ path: root });
    expect(reopened.lastRefresh).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 1 });
  });

  it('prints one JSON object per change with --json', async () => {
    const root = await makeVault({ 'insights/a.md': '# A\n' });
    const result = await runWatch(root, ['--json'], async (out) => {
      await writeFile(join(root, 'insights/a.md'), '# A\nedited\n');
      await vi.waitFor(() => expect(out()).toContain('\n'), WAIT);
    });
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ path: 'insights/a.md', kind: 'changed' }]);
  });
});
