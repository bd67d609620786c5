import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** Writes files (vault path → text) into `root`, folders made as needed. */
async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A folder with no mem.config.json: what a person's Obsidian vault is before `mem init`. */
async function obsidianVault(files: Record<string, string>): Promise<string> {
  const root = await makeVault(files);
  await rm(join(root, 'mem.config.json'));
  return root;
}

// A three-year-old vault: the core Daily notes plugin set to nested folders and a template
// (`.obsidian/daily-notes.json` holds folder, format and template, as Obsidian writes it;
// `core-plugins.json` in its older array form lists the enabled core plugins), a person's notes,
// and a `memory/` folder of their own that mem must not take.
const PERSON = {
  '.obsidian/daily-notes.json': JSON.stringify({
    folder: 'Journal/Daily',
    format: 'YYYY/MM/YYYY-MM-DD',
    template: 'Templates/Daily',
  }),
  '.obsidian/core-plugins.json': JSON.stringify(['file-explorer', 'daily-notes', 'templates']),
  '.obsidian/app.json': '{}',
  'Templates/Daily.md': '# {{title}}\n\n## Tasks\n- [ ] \n',
  'Journal/Daily/2026/12/2026-12-02.md':
    '# 2026-12-02\n\n## Tasks\n- [x] physio at 10\n- [ ] call Mei\n\nKnee feels better.\n\n## Evening\nRead a book.\n',
  'People/Mei.md': '---\naliases: [美]\n---\n# Mei\nMy sister, lives in Hangzhou. Loves jasmine tea.\n',
  'memory/Things I remember.md': '# Things\nMy own list.\n',
};

describe('mem init in an Obsidian vault', () => {
  it('adopts it as it is: days where Daily notes puts them, mem under its own heading and folder, only its files committed', async () => {
    const root = await obsidianVault(PERSON);
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=P', '-c', 'user.email=p@x', 'commit', '-qm', 'my vault');
    // Work in progress the person has not committed: one file staged, one edited.
    await put(root, { 'Inbox.md': 'staged idea\n' });
    git(root, 'add', 'Inbox.md');
    await writeFile(
      join(root, 'People/Mei.md'),
      `${await readFile(join(root, 'People/Mei.md'), 'utf8')}Birthday in May.\n`,
    );
    const statusBefore = git(root, 'status', '--porcelain');

    const init = await mem(['init'], { cwd: root });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`adopted the Obsidian vault in ${root}`);
    expect(init.stdout).toContain(
      'days: Journal/Daily/, named YYYY/MM/YYYY-MM-DD, from Templates/Daily.md (Daily notes settings)',
    );
    expect(init.stdout).toContain("mem's own notes: memvault/");
    expect(init.stdout).toMatch(/committed these 4 files to git, and nothing else/);
    // Only mem's files are in its commit; the person's staged and unstaged work is as it was.
    expect(git(root, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual([
      'mem: adopt this Obsidian vault as memory',
      '',
      // Its days merge entry by entry on any git pull (obsidian-git's too).
      '.gitattributes',
      'mem.config.json',
      'memvault/persona/identity.md',
      'memvault/profile/user.md',
    ]);
    expect(git(root, 'status', '--porcelain')).toBe(statusBefore);
    const config = JSON.parse(await readFile(join(root, 'mem.config.json'), 'utf8'));
    expect(config.layout.daily).toEqual({
      folder: 'Journal/Daily',
      format: 'YYYY/MM/YYYY-MM-DD',
      template: 'Templates/Daily.md',
      heading: 'Memory',
      locale: 'en',
    });

    expect((await mem(['config', 'set', 'timezone', 'Asia/Shanghai'], { cwd: root })).code).toBe(0);
    // A turn today joins the person's own daily note, under mem's heading, nothing else moved.
    const today = await mem(
      [
        'remember',
        'Mei called about the jasmine tea',
        '--speaker',
        'Rain',
        '--at',
        '2026-12-02T21:05:00+08:00',
      ],
      { cwd: root },
    );
    expect(today.code).toBe(0);
    const day = await readFile(join(root, 'Journal/Daily/2026/12/2026-12-02.md'), 'utf8');
    expect(day).toBe(
      `${PERSON['Journal/Daily/2026/12/2026-12-02.md']}\n## Memory\n- 21:05 **Rain:** Mei called about the jasmine tea ^e1\n`,
    );
    // A new day starts from the person's template.
    const tomorrow = await mem(['remember', 'slept well', '--at', '2026-12-03T08:00:00+08:00'], {
      cwd: root,
    });
    expect(tomorrow.code).toBe(0);
    expect(await readFile(join(root, 'Journal/Daily/2026/12/2026-12-03.md'), 'utf8')).toBe(
      '# 2026-12-03\n\n## Tasks\n- [ ] \n\n## Memory\n- 08:00 slept well ^e1\n',
    );
    // The person's notes are memory too: found, and linked as they are.
    const recall = await mem(
      ['recall', 'jasmine tea sister', '--json', '--now', '2026-12-03T09:00:00+08:00'],
      { cwd: root },
    );
    const paths = (JSON.parse(recall.stdout) as { hits: Array<{ path: string }> }).hits.map((h) => h.path);
    expect(paths).toContain('People/Mei.md');
    expect(paths).toContain('Journal/Daily/2026/12/2026-12-02.md');
    expect(await readFile(join(root, 'memory/Things I remember.md'), 'utf8')).toBe(
      '# Things\nMy own list.\n',
    );
  });

  it('follows the Periodic Notes plugin when it is on, and makes a repository for a vault in none', async () => {
    // Periodic Notes 0.0.x keeps `{ daily: { enabled, folder, format, template } }` in its data.json;
    // community-plugins.json lists the enabled community plugins.
    const root = await obsidianVault({
      '.obsidian/community-plugins.json': JSON.stringify(['periodic-notes']),
      '.obsidian/plugins/periodic-notes/data.json': JSON.stringify({
        daily: { enabled: true, folder: 'Days', format: 'DD.MM.YYYY' },
      }),
      '.obsidian/daily-notes.json': JSON.stringify({ folder: 'Ignored', format: 'YYYY-MM-DD' }),
      'Ideas.md': '# Ideas\n',
    });
    const init = await mem(['init', '--json'], { cwd: root });
    expect(init.code).toBe(0);
    const result = JSON.parse(init.stdout) as {
      gitInitialized: boolean;
      committed: boolean;
      created: string[];
      adopted: { daily: { source: string; folder: string } };
    };
    expect(result.adopted.daily).toMatchObject({ source: 'periodic-notes', folder: 'Days' });
    expect(result.gitInitialized).toBe(true);
    expect(result.committed).toBe(true);
    // The person's notes stay theirs to commit: mem committed its own files only.
    expect(git(root, 'ls-files').trim().split('\n').sort()).toEqual([...result.created].sort());
    expect(git(root, 'status', '--porcelain')).toContain('?? Ideas.md');
    const add = await mem(['remember', 'hello', '--at', '2026-12-02T10:00:00Z', '--json'], { cwd: root });
    expect(JSON.parse(add.stdout).path).toBe('Days/02.12.2026.md');
  });

  it('refuses, writing nothing, when the daily-notes settings are not valid JSON', async () => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': '{ folder: ', 'A.md': 'a\n' });
    const init = await mem(['init'], { cwd: root });
    expect(init.code).not.toBe(0);
    expect(init.stderr).toMatch(/^mem: .*daily-notes\.json/);
    expect((await readdir(root)).sort()).toEqual(['.obsidian', 'A.md']);
  });

  it('refuses a daily-note format that names no one day, naming the settings file, and writes nothing', async () => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': JSON.stringify({ format: 'MMMM Do' }) });
    const init = await mem(['init'], { cwd: root });
    expect(init.code).not.toBe(0);
    expect(init.stderr).toMatch(/^mem: .*daily-notes\.json: .*--no-adopt; nothing was written\n$/);
    expect((await readdir(root)).sort()).toEqual(['.obsidian']);
  });

  it('takes no folder name Obsidian is set to use, made or not, and refuses a symlink where its config would go', async () => {
    const root = await obsidianVault({
      '.obsidian/daily-notes.json': JSON.stringify({ folder: 'Memory/Days' }),
      '.obsidian/templates.json': JSON.stringify({ folder: 'memvault' }),
    });
    const plan = await mem(['init', '--json', '--no-git'], { cwd: root });
    expect(plan.code).toBe(0);
    // Memory/ (the days, not made yet) and memvault/ (the templates) are the person's names.
    expect(JSON.parse(plan.stdout).adopted.home).toBe('memvault-memory');

    const other = await obsidianVault({ '.obsidian/app.json': '{}' });
    await symlink('/nonexistent/memvault-config', join(other, 'mem.config.json'));
    const refused = await mem(['init'], { cwd: other });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/already has mem\.config\.json; nothing was written/);
    expect((await readdir(other)).sort()).toEqual(['.obsidian', 'mem.config.json']);
  });

  it('--no-adopt lays out the layered tree in an Obsidian vault, as before', async () => {
    const root = await obsidianVault({ '.obsidian/app.json': '{}' });
    const init = await mem(['init', '--no-adopt', '--no-git', '--json'], { cwd: root });
    expect(init.code).toBe(0);
    expect(JSON.parse(init.stdout).created).toContain('persona/identity.md');
  });
});
