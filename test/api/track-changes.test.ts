import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault, type Vault } from '../../src/api/open-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { WAIT } from '../helpers/wait.js';

// The `track` option, on real folders: inotify watches one per folder, a barrier file per refresh.
// Every change below is made and then refreshed at once, with no wait: a refresh that answered
// before the kernel's events for those writes were heard would miss them.
const opened: Vault[] = [];
const linux = process.platform === 'linux';

afterEach(async () => {
  for (const vault of opened.splice(0)) await vault.close();
  await cleanupVaults();
});

async function tracked(files: Record<string, string>, track: Parameters<typeof openVault>[0] = {}) {
  const root = await makeVault({ 'persona/me.md': '# Me\n\nI am a helper.\n', ...files });
  const vault = await openVault({ path: root, track: true, ...track });
  opened.push(vault);
  return { root, vault };
}

const paths = (vault: Vault, query: string) => vault.recall(query).hits.map((hit) => hit.path);

/** Refreshes and says how: `tracked` (only what changed was read) or `walk` (every note looked at). */
async function refreshed(vault: Vault): Promise<string> {
  await vault.refresh();
  return vault.lastRefreshScope;
}

describe.runIf(linux)('a tracked vault (Linux)', () => {
  it('sees a note written just before each refresh, reading only what changed', async () => {
    const { root, vault } = await tracked({ 'profile/pets.md': '# Pets\n\nA cat.\n' });
    expect(vault.changeTracking).toEqual({ tracked: true });
    for (let i = 0; i < 25; i++) {
      // Synchronous, so no turn of the event loop (where the kernel's events are read) comes
      // between the write and the refresh: only the barrier makes the refresh wait for them.
      writeFileSync(join(root, 'profile', 'pets.md'), `# Pets\n\nA cat named token${i}x.\n`);
      expect(await refreshed(vault)).toBe('tracked');
      expect(paths(vault, `token${i}x`)).toEqual(['profile/pets.md']);
      expect(vault.lastRefresh.changed).toBe(1);
    }
    // Nothing changed: nothing is read.
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.lastRefresh).toMatchObject({ added: 0, changed: 0, removed: 0 });
    rmSync(join(root, 'profile', 'pets.md'));
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.lastRefresh.removed).toBe(1);
    expect(vault.paths()).toEqual(['persona/me.md']);
  });

  it('sees what another process wrote before the refresh', async () => {
    const { root, vault } = await tracked({});
    const script = `require('node:fs').mkdirSync(process.argv[1] + '/inbox/today', { recursive: true });
      require('node:fs').writeFileSync(process.argv[1] + '/inbox/today/call.md', 'Called the plumber.\\n');`;
    execFileSync(process.execPath, ['-e', script, root]);
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'plumber')).toEqual(['inbox/today/call.md']);
    execFileSync(process.execPath, [
      '-e',
      `require('node:fs').rmSync(process.argv[1] + '/inbox', { recursive: true })`,
      root,
    ]);
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual(['persona/me.md']);
  });

  it('walks once when .mem/ was removed under it, then tracks again', async () => {
    const { root, vault } = await tracked({});
    // The first tracked refresh watches .mem/ for its barrier files; then the folder goes.
    expect(await refreshed(vault)).toBe('tracked');
    rmSync(join(root, '.mem'), { recursive: true, force: true });
    writeFileSync(join(root, 'after.md'), 'Written after the cache folder went.\n');
    expect(await refreshed(vault)).toBe('walk');
    expect(paths(vault, 'cache folder')).toEqual(['after.md']);
    writeFileSync(join(root, 'later.md'), 'And one more later.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'later')).toEqual(['later.md']);
  });

  it('takes in a note saved the way editors save: a temp file renamed over it', async () => {
    const { root, vault } = await tracked({ 'insights/tea.md': '# Tea\n\nGreen.\n' });
    await writeFile(join(root, 'insights', '.tea.md.tmp'), '# Tea\n\nOolong now.\n');
    await rename(join(root, 'insights', '.tea.md.tmp'), join(root, 'insights', 'tea.md'));
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'oolong')).toEqual(['insights/tea.md']);
  });

  it('watches a new folder tree, a renamed one and one removed and made again', async () => {
    const { root, vault } = await tracked({});
    await mkdir(join(root, 'projects', 'garden', 'beds'), { recursive: true });
    await writeFile(join(root, 'projects', 'garden', 'beds', 'tomato.md'), 'Tomatoes in bed one.\n');
    await writeFile(join(root, 'projects', 'garden', 'plan.md'), 'Plan the beans.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual([
      'persona/me.md',
      'projects/garden/beds/tomato.md',
      'projects/garden/plan.md',
    ]);

    // A folder just watched hears its own changes.
    await writeFile(join(root, 'projects', 'garden', 'beds', 'squash.md'), 'Squash in bed two.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'squash')).toEqual(['projects/garden/beds/squash.md']);

    await rename(join(root, 'projects', 'garden'), join(root, 'projects', 'allotment'));
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual([
      'persona/me.md',
      'projects/allotment/beds/squash.md',
      'projects/allotment/beds/tomato.md',
      'projects/allotment/plan.md',
    ]);
    // The moved folder is heard under its new name.
    await writeFile(join(root, 'projects', 'allotment', 'beds', 'leek.md'), 'Leeks in bed three.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'leeks')).toEqual(['projects/allotment/beds/leek.md']);

    // Removed and made again under the same name (the kernel may give it the same inode): the
    // old watch is dead, and the new folder must still be heard.
    await rm(join(root, 'projects', 'allotment'), { recursive: true });
    await mkdir(join(root, 'projects', 'allotment'));
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual(['persona/me.md']);
    await writeFile(join(root, 'projects', 'allotment', 'new.md'), 'Radishes this year.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'radishes')).toEqual(['projects/allotment/new.md']);
  });

  it('a folder named like its parent is not taken for the parent going away', async () => {
    const { root, vault } = await tracked({ 'notes/a.md': 'Alpha note.\n' });
    await mkdir(join(root, 'notes', 'notes'));
    await writeFile(join(root, 'notes', 'notes', 'b.md'), 'Beta note.\n');
    expect(await refreshed(vault)).toBe('tracked');
    await writeFile(join(root, 'notes', 'c.md'), 'Gamma note.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual(['notes/a.md', 'notes/c.md', 'notes/notes/b.md', 'persona/me.md']);
  });

  it('leaves out what a walk leaves out: hidden folders, node_modules, symlinks, other files', async () => {
    const { root, vault } = await tracked({});
    await mkdir(join(root, '.obsidian'), { recursive: true });
    await writeFile(join(root, '.obsidian', 'x.md'), 'hidden\n');
    await mkdir(join(root, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(root, 'node_modules', 'pkg', 'README.md'), 'package\n');
    await writeFile(join(root, 'todo.txt'), 'not a note\n');
    await symlink(join(root, 'persona', 'me.md'), join(root, 'link.md'));
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.paths()).toEqual(['persona/me.md']);
  });

  it('indexes a note in a folder with a decomposed (NFD) name under its NFC path', async () => {
    const { root, vault } = await tracked({});
    const nfd = 'Cafe\u0301';
    await mkdir(join(root, nfd));
    await writeFile(join(root, nfd, 'menu.md'), 'Espresso and croissants.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'espresso')).toEqual(['Café/menu.md']);
    await writeFile(join(root, nfd, 'menu.md'), 'Tea and scones.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(paths(vault, 'scones')).toEqual(['Café/menu.md']);
  });

  it('walks the whole vault after a burst of events that may have overflowed the queue, then tracks again', async () => {
    const { root, vault } = await tracked({}, { track: { overflowAt: 50 } });
    await mkdir(join(root, 'bulk'));
    expect(await refreshed(vault)).toBe('tracked');
    // Written with the event loop blocked, so their events are all heard in the loop's next turn
    // (written asynchronously, they sometimes came spread over turns of fewer than 50 and were
    // trusted, or the refresh's walk began inside the burst and its tail called for another).
    for (let i = 0; i < 120; i++) writeFileSync(join(root, 'bulk', `n${i}.md`), `Bulk note ${i}.\n`);
    await new Promise((resolve) => setImmediate(resolve));
    // A burst that big is not trusted.
    expect(await refreshed(vault)).toBe('walk');
    expect(vault.noteCount).toBe(121);
    await writeFile(join(root, 'bulk', 'late.md'), 'A late note.\n');
    expect(await refreshed(vault)).toBe('tracked');
    expect(vault.noteCount).toBe(122);
  });

  it('a watcher over tracked folders walks after an overflow and reports every note the walk found', async () => {
    const { root, vault } = await tracked({}, { track: { overflowAt: 50 } });
    const changes: string[] = [];
    const { live } = vault as unknown as { live: { walkChanges: () => Promise<unknown> } };
    const walks = vi.spyOn(live, 'walkChanges');
    const watcher = await vault.watch({ onChange: (c) => changes.push(`${c.kind} ${c.path}`) });
    await writeFile(join(root, 'one.md'), 'One note.\n');
    await vi.waitFor(() => expect(changes).toEqual(['added one.md']), WAIT);
    expect(walks).not.toHaveBeenCalled();
    await writeFile(join(root, 'two.md'), 'Two notes.\n');
    await vi.waitFor(() => expect(changes).toHaveLength(2), WAIT);
    // Written with the event loop blocked: their events are all heard in one turn.
    for (let i = 0; i < 120; i++) writeFileSync(join(root, `n${i}.md`), `Bulk note ${i}.\n`);
    await vi.waitFor(() => expect(vault.noteCount).toBe(123), WAIT);
    expect(walks).toHaveBeenCalledTimes(1);
    expect(changes).toHaveLength(122);
    expect(changes).toContain('added n119.md');
    await watcher.close();
  });

  it('is not done when the vault follows symlinks: every refresh walks, and still sees changes', async () => {
    const root = await makeVault(
      { 'persona/me.md': '# Me\n' },
      { config: { timezone: 'UTC', followOutsideSymlinks: true } },
    );
    const vault = await openVault({ path: root, track: true });
    opened.push(vault);
    expect(vault.changeTracking).toEqual({
      tracked: false,
      reason: 'the vault follows symlinks (followOutsideSymlinks)',
    });
    await writeFile(join(root, 'new.md'), 'Walked into view.\n');
    expect(await refreshed(vault)).toBe('walk');
    expect(paths(vault, 'walked')).toEqual(['new.md']);
  });
});

describe('a vault opened without track', () => {
  it('walks on every refresh and says tracking was not asked for', async () => {
    const root = await makeVault({ 'a.md': 'One.\n' });
    const vault = await openVault({ path: root });
    opened.push(vault);
    expect(vault.changeTracking).toEqual({ tracked: false, reason: 'not asked for' });
    await writeFile(join(root, 'b.md'), 'Two.\n');
    expect(await refreshed(vault)).toBe('walk');
    expect(vault.paths()).toEqual(['a.md', 'b.md']);
  });
});
