import { lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vaultStatus } from '../../src/index.js';
import { acceptProposedConfig } from '../../src/inspect/vault-config.js';
import { DAY_PATH, twoClones } from '../git/sync-helpers.js';
import { git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { memProcess } from '../helpers/run-cli.js';

// Issue 31: a remote is not this device. `b` plays the remote's other writer (or an attacker who
// can push to it); `a` takes what it pushed through `mem sync` and through a plain `git pull`.
// Needs `npm run build`.

afterEach(cleanupVaults);

const AT = '2026-11-29T10:00:00Z';
const push = async (clone: string, message: string) => {
  await git(clone, 'add', '-A', '-f');
  await git(clone, 'commit', '-q', '-m', message);
  await git(clone, 'push', '-q', 'origin', 'HEAD:main');
};
const memIn = (root: string, ...args: string[]) => memProcess(['--vault', root, ...args]);

/** What a remote may plant, each pushed on its own. */
const PLANTS: Array<[string, (b: string) => Promise<void>, RegExp]> = [
  [
    'a plan record in .mem/ naming the person’s untracked note',
    async (b) => {
      await mkdir(join(b, '.mem/plans'), { recursive: true });
      await writeFile(
        join(b, '.mem/plans/planted.json'),
        JSON.stringify({ key: 'import x', message: 'mem: import x', paths: ['diary/secret.md'] }),
      );
    },
    /\.mem\/plans\/planted\.json \(mem's own state/,
  ],
  [
    'a journal of accepted adds in .mem/',
    async (b) => {
      await mkdir(join(b, '.mem'), { recursive: true });
      await writeFile(join(b, '.mem/adds.jsonl'), '{"id":"x","at":"2026-11-29T10:00:00Z","entries":[]}\n');
    },
    /\.mem\/adds\.jsonl/,
  ],
  [
    'a day note replaced by a symlink',
    async (b) => {
      await rm(join(b, DAY_PATH));
      await symlink('../../profile/user.md', join(b, DAY_PATH));
    },
    /2026-11-29\.md \(a symlink\)/,
  ],
  [
    'a new note that is a symlink out of the vault',
    async (b) => {
      await symlink('/etc/hostname', join(b, 'insights/host.md'));
    },
    /insights\/host\.md \(a symlink\)/,
  ],
];

describe('mem sync refuses what a remote may not bring, and changes nothing', () => {
  it.each(PLANTS)('%s', async (plantName, plant, named) => {
    const { a, b } = await twoClones();
    // A first sync sets up the day-merge driver (its own commit), so the refused one changes nothing.
    expect((await memIn(a, 'sync')).code).toBe(0);
    await git(b, 'pull', '-q', 'origin', 'main');
    await plant(b);
    await push(b, 'planted');
    await writeFile(join(a, 'diary-secret.md'), 'untracked, the person’s own\n');
    const before = await git(a, 'rev-parse', 'HEAD');
    const synced = await memIn(a, 'sync');
    await reportReliability({
      class: 'hostile remote through mem sync (.mem/, symlinks)',
      plant: plantName,
      refused: synced.code !== 0 ? 1 : 0,
    });
    expect(synced.code).not.toBe(0);
    expect(synced.stderr).toMatch(named);
    expect(synced.stderr).toContain('Nothing was changed');
    expect(await git(a, 'rev-parse', 'HEAD')).toBe(before);
    expect(await git(a, 'status', '--porcelain')).toBe('?? diary-secret.md\n');
    // Later writes go on as before.
    const later = await memIn(a, 'remember', 'still fine', '--at', AT);
    expect(later.code).toBe(0);
    expect(await git(a, 'log', '--format=%s', '-1')).toMatch(/^mem: remember 2026-11-29/);
  });
});

describe('what a plain git pull brings is not trusted either', () => {
  it('a planted plan record is set aside, never committed; a symlinked day note is never written through', async () => {
    const { a, b } = await twoClones();
    await mkdir(join(b, '.mem/plans'), { recursive: true });
    await writeFile(
      join(b, '.mem/plans/planted.json'),
      JSON.stringify({ key: 'import x', message: 'mem: import x', paths: ['diary-secret.md'] }),
    );
    await rm(join(b, DAY_PATH));
    await symlink('../../profile/user.md', join(b, DAY_PATH));
    await push(b, 'planted');
    await writeFile(join(a, 'diary-secret.md'), 'untracked, the person’s own\n');
    await git(a, 'pull', '-q', 'origin', 'main');
    const profile = await readFile(join(a, 'profile/user.md'), 'utf8');

    const day = await memIn(a, 'remember', 'into the linked day', '--at', AT);
    expect(day.code).not.toBe(0);
    expect(day.stderr).toContain('is a symlink');
    expect(await readFile(join(a, 'profile/user.md'), 'utf8')).toBe(profile);
    expect((await lstat(join(a, DAY_PATH))).isSymbolicLink()).toBe(true);

    const other = await memIn(a, 'remember', 'another day', '--at', '2026-11-30T10:00:00Z');
    expect(other.code).toBe(0);
    expect(await git(a, 'ls-files', 'diary-secret.md')).toBe('');
    // A clone's ids carry its device tag (`^e1-k7q2`).
    expect(await git(a, 'log', '--format=%s', '-1')).toMatch(/^mem: remember 2026-11-30#\^e1-[0-9a-z]{4}\n$/);
    const status = await vaultStatus(a);
    expect(status.setAside.join('\n')).toContain('tracked by git');
  });
});

describe('settings that send the vault elsewhere', () => {
  it("a remote's new model endpoint is kept out of the merge until accepted on this device", async () => {
    const { a, b } = await twoClones(undefined, { llm: { baseURL: 'http://127.0.0.1:11434/v1' } });
    const config = JSON.parse(await readFile(join(b, 'mem.config.json'), 'utf8'));
    config.llm.baseURL = 'https://collector.invalid/v1';
    config.embeddings = { enabled: true, baseURL: 'https://collector.invalid/v1' };
    config.recall = { k: 7 };
    await writeFile(join(b, 'mem.config.json'), `${JSON.stringify(config, null, 2)}\n`);
    await push(b, 'new endpoints');

    const synced = await memIn(a, 'sync');
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
    const merged = JSON.parse(await readFile(join(a, 'mem.config.json'), 'utf8'));
    expect(merged.llm.baseURL).toBe('http://127.0.0.1:11434/v1');
    expect(merged.embeddings?.baseURL).toBeUndefined();
    expect(merged.embeddings?.enabled).toBeUndefined();
    // Other settings come through as any change does.
    expect(merged.recall.k).toBe(7);
    expect(await git(a, 'status', '--porcelain')).toBe('');

    const status = await memIn(a, 'status');
    expect(status.stdout).toMatch(/waiting .*llm\.baseURL = "https:\/\/collector\.invalid\/v1"/);
    const accepted = await acceptProposedConfig(a);
    expect(Object.keys(accepted.values).sort()).toEqual([
      'embeddings.baseURL',
      'embeddings.enabled',
      'llm.baseURL',
    ]);
    const now = JSON.parse(await readFile(join(a, 'mem.config.json'), 'utf8'));
    expect(now.llm.baseURL).toBe('https://collector.invalid/v1');
    expect(await git(a, 'status', '--porcelain')).toBe('');
    expect((await vaultStatus(a)).proposedConfig).toBeUndefined();
  });
});
