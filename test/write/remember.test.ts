import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const AT = new Date('2026-11-30T09:14:00+08:00');

describe('remember', () => {
  it("appends an entry with a fresh block id to the day's note, created from the template", async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    const first = await vault.remember({ text: '我下个月搬到上海工作', speaker: 'Rain', at: AT });
    const second = await vault.remember({ text: 'Went hiking', kind: 'event', tags: ['hike'], at: AT });
    expect(first.link).toBe('[[2026-11-30#^e1]]');
    expect(second.link).toBe('[[2026-11-30#^e2]]');
    const text = await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8');
    expect(text).toBe(
      '---\ndate: 2026-11-30\ntype: episode\n---\n# 2026-11-30\n\n- 09:14 **Rain:** 我下个月搬到上海工作 ^e1\n- 09:14 (event) Went hiking #hike ^e2\n',
    );
    const note = parseNote('episodes/daily/2026-11-30.md', text);
    expect(note.sections.filter((s) => s.kind === 'block').map((s) => [s.anchor, s.time, s.speaker])).toEqual(
      [
        ['^e1', '09:14', 'Rain'],
        ['^e2', '09:14', undefined],
      ],
    );
    // The index sees it at once.
    expect(vault.recall('上海', { now: AT }).hits[0]?.link).toBe('[[2026-11-30#^e1]]');
  });

  it('uses the vault time zone to pick the day', async () => {
    const root = await makeVault({}, { config: { timezone: 'America/New_York' } });
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.remember({ text: 'late night', at: new Date('2026-12-01T03:00:00Z') });
    expect(result.path).toBe('episodes/daily/2026-11-30.md');
    expect(await readFile(join(root, result.path), 'utf8')).toContain('- 22:00 late night ^e1');
  });

  it('keeps a hand edit made to the day and appends after it', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({ text: 'one', at: AT });
    const path = join(root, 'episodes/daily/2026-11-30.md');
    await writeFile(path, `${await readFile(path, 'utf8')}\nA paragraph Rain typed in Obsidian.\n`);
    await vault.remember({ text: 'two', at: AT });
    const text = await readFile(path, 'utf8');
    expect(text).toContain('A paragraph Rain typed in Obsidian.\n- 09:14 two ^e2\n');
  });

  it('redacts secrets unless told not to', async () => {
    const vault = await openVault({ path: await makeVault(), cache: false });
    const result = await vault.remember({ text: 'my key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123456', at: AT });
    expect(result.redacted).toBe(1);
    const text = await readFile(join(vault.root, result.path), 'utf8');
    expect(text).not.toContain('sk-proj-');
    expect(text).toContain('[REDACTED:');
  });

  it('refuses empty text and an importance outside 0..1, writing nothing', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.remember({ text: '  ' })).rejects.toThrow('nothing to remember: the text is empty');
    await expect(vault.remember({ text: 'x', importance: 3 })).rejects.toThrow(
      '"importance" must be a number from 0 to 1',
    );
    expect(existsSync(join(root, 'episodes'))).toBe(false);
  });

  it('commits exactly the daily note and leaves the user’s staged and unstaged changes alone', async () => {
    const root = await gitVault({ 'profile/user.md': '# Rain\n', 'insights/a.md': '# A\n' });
    await writeFile(join(root, 'profile/user.md'), '# Rain\nstaged edit\n');
    await git(root, 'add', 'profile/user.md');
    await writeFile(join(root, 'insights/a.md'), '# A\nunstaged edit\n');
    const before = [await git(root, 'diff', '--cached'), await git(root, 'diff')];
    const result = await (await openVault({ path: root, cache: false })).remember({ text: 'hello', at: AT });
    expect(result.committed).toBe(true);
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: remember 2026-11-30#^e1\n');
    expect(await git(root, 'show', '--name-only', '--format=', 'HEAD')).toBe(
      'episodes/daily/2026-11-30.md\n',
    );
    expect([await git(root, 'diff', '--cached'), await git(root, 'diff')]).toEqual(before);
  });

  it('writes but does not commit while git is busy, and says why', async () => {
    const root = await gitVault();
    await writeFile(join(root, '.git/index.lock'), '');
    const run = await mem(['remember', 'during a merge', '--at', AT.toISOString()], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('[[2026-11-30#^e1]]\n');
    expect(run.stderr).toMatch(/^mem: written, not committed: .*index\.lock/);
    expect(await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8')).toContain(
      'during a merge ^e1',
    );
    expect(await git(root, 'log', '--format=%s')).toBe('init\n');
  });

  it('reads the text from stdin with -', async () => {
    const root = await makeVault();
    const run = await mem(['remember', '-', '--speaker', 'Rain', '--at', AT.toISOString()], {
      cwd: root,
      stdin: 'from a pipe\n',
    });
    expect(run.code).toBe(0);
    expect(await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8')).toContain(
      '- 09:14 **Rain:** from a pipe ^e1',
    );
  });

  describe('two processes appending to the same day at once', () => {
    beforeAll(() => {
      if (!existsSync(join(REPO_ROOT, 'dist/index.js')))
        execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
    });

    it('lose nothing and leave a well-formed note', async () => {
      const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } });
      await mkdir(join(root, 'episodes/daily'), { recursive: true });
      const script = join(REPO_ROOT, 'test/fixtures/remember/append-many.mjs');
      const run = (tag: string) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(process.execPath, [script, root, tag, '500'], { stdio: 'inherit' });
          child.on('error', reject);
          child.on('close', (code) => resolve(code ?? 1));
        });
      expect(await Promise.all([run('A'), run('B')])).toEqual([0, 0]);
      const text = await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8');
      const note = parseNote('episodes/daily/2026-11-30.md', text);
      const blocks = note.sections.filter((s) => s.kind === 'block');
      expect(blocks).toHaveLength(1000);
      expect(new Set(blocks.map((b) => b.anchor)).size).toBe(1000);
      for (const tag of ['A', 'B']) {
        const mine = blocks.filter((b) => b.speaker === tag).map((b) => b.text);
        expect(mine).toEqual(Array.from({ length: 500 }, (_, i) => `${tag} entry ${i}`));
      }
      // Every append sees the other writer's and confirms with two delayed looks (~90 ms): 87 s
      // alone on a shared 2-core machine, past 120 s within a full run there.
    }, 300_000);
  });
});

describe('speakers', () => {
  it('keep the speaker of an event, where the parser reads it', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({ text: 'Went hiking', kind: 'event', speaker: 'Rain', at: AT });
    const text = await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8');
    expect(text).toContain('- 09:14 **Rain:** (event) Went hiking ^e1\n');
    const [entry] = parseNote('episodes/daily/2026-11-30.md', text).sections.filter(
      (s) => s.kind === 'block',
    );
    expect([entry?.speaker, entry?.text]).toEqual(['Rain', '(event) Went hiking']);
  });

  it('write the names the config gives for roles, in remember and ingest', async () => {
    const root = await makeVault(
      {},
      { config: { timezone: 'Asia/Shanghai', speakers: { user: 'Rain', assistant: '小满' } } },
    );
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({ text: 'hello', speaker: 'user', at: AT });
    await vault.ingest('{"role":"assistant","content":"你好","timestamp":"2026-11-30T09:20:00+08:00"}\n', {
      name: 'chat.jsonl',
    });
    const text = await readFile(join(root, 'episodes/daily/2026-11-30.md'), 'utf8');
    expect(text).toContain('- 09:14 **Rain:** hello ^e1\n');
    expect(text).toMatch(/- 09:20 \*\*小满:\*\* 你好 \^i[0-9a-f]{10}\n/);
  });
});
