// `mem import` through the built CLI (dist/, so run `npm run build` first) into temp vaults.
// The fixtures' formats and where each is documented: see parse-exports.test.ts.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { mem, memProcess } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const FIXTURES = join(REPO_ROOT, 'test/fixtures/import');
const CONFIG = { timezone: 'Asia/Shanghai', speakers: { user: 'Rain', assistant: '小满' } };
/** The machine's zone differs from the vault's: days must follow the vault's. */
const ENV = {
  TZ: 'America/New_York',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

const days = async (root: string) => (await readdir(join(root, 'episodes/daily')).catch(() => [])).sort();
const commits = async (root: string) => (await git(root, 'log', '--format=%s')).trim().split('\n');

describe('mem import (built CLI)', () => {
  it('imports a ChatGPT export into the days of the vault zone with its speaker names, once', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const file = join(FIXTURES, 'chatgpt/conversations.json');
    const first = await memProcess(['import', file], { cwd: root, env: ENV });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `${file} (chatgpt): 2 conversations; 6 entries added on 3 days, 0 already in the vault\n` +
        'skipped: 2 edited or regenerated branch, 3 system or tool message, 1 custom instructions\n',
    );
    // 15:50Z is 23:50 in Shanghai (Nov 30); 16:05Z is 00:05 on Dec 1; New York would say Nov 30 for all.
    expect(await days(root)).toEqual(['2025-11-30.md', '2025-12-01.md', '2025-12-02.md']);
    const nov30 = await readFile(join(root, 'episodes/daily/2025-11-30.md'), 'utf8');
    expect(nov30).toMatch(
      /\n- 23:50 \*\*Rain:\*\* I move to Shanghai next month\. Which district is good for a first job at Lumen Labs\? \^i[0-9a-f]{10}\n- 23:51 \*\*小满:\*\* Jing'an or Xuhui: short commute, lots of cafés\. \^i[0-9a-f]{10}\n$/,
    );
    expect(nov30).not.toContain('old answer');
    const dec1 = await readFile(join(root, 'episodes/daily/2025-12-01.md'), 'utf8');
    expect(dec1).toMatch(
      /\n- 00:05 \*\*Rain:\*\* What does a one-bedroom cost there\? \^i[0-9a-f]{10}\n- 00:10 \*\*小满:\*\* About/,
    );
    expect(await commits(root)).toEqual(['mem: import conversations.json (6 entries)', 'init']);

    const second = await memProcess(['import', file], { cwd: root, env: { ...ENV, TZ: 'Europe/London' } });
    expect(second.code).toBe(0);
    expect(second.stdout.split('\n')[0]).toBe(
      `${file} (chatgpt): 2 conversations; 0 entries added on 0 days, 6 already in the vault`,
    );
    expect(await readFile(join(root, 'episodes/daily/2025-11-30.md'), 'utf8')).toBe(nov30);
    expect(await commits(root)).toHaveLength(2);
    // A run that adds nothing says so, not "committed" with the earlier commit's sha.
    const third = await memProcess(['import', file, '--json'], { cwd: root, env: ENV });
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ added: 0, committed: false, code: 'nothing-to-write' });
  });

  it('is taken back whole by mem undo, like ingest', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const file = join(FIXTURES, 'chatgpt/conversations.json');
    expect((await memProcess(['import', file], { cwd: root, env: ENV })).code).toBe(0);
    expect(await days(root)).toHaveLength(3);
    const undo = await memProcess(['undo'], { cwd: root, env: ENV });
    expect(undo.stderr).toBe('');
    expect(undo.code).toBe(0);
    expect(await days(root)).toEqual([]);
    expect(await commits(root)).toEqual([
      'mem: undo import conversations.json (6 entries)',
      'mem: import conversations.json (6 entries)',
      'init',
    ]);
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
  });

  it('imports an MCP memory graph as profile notes, appending only missing facts to a hand-edited note', async () => {
    const user =
      '---\ntitle: User\n---\n# Rain\n\nWritten by hand.\n\n## Facts\n- Scared of heights but wants to try bouldering\n';
    const root = await gitVault({ 'profile/user.md': user }, { config: CONFIG });
    const file = join(FIXTURES, 'mcp-memory/memory.jsonl');
    const first = await memProcess(['import', file, '--now', '2025-12-01T12:00:00+08:00'], {
      cwd: root,
      env: ENV,
    });
    expect(first.stdout).toBe(
      `${file} (MCP memory graph): 3 entities; 2 notes created, 1 updated, 5 facts and links added, 1 already in the vault\n`,
    );
    // default_user is the vault's user: the fact already there is not repeated, the hand text stays.
    expect(await readFile(join(root, 'profile/user.md'), 'utf8')).toBe(
      '---\ntitle: User\n---\n# Rain\n\nWritten by hand.\n\n## Facts\n- Scared of heights but wants to try bouldering\n- Moves to Shanghai in December 2025\n\n## Relations\n- works at [[Lumen_Labs]]\n- is friends with [[Mei]]\n',
    );
    const mei = join(root, 'profile/people/Mei.md');
    expect(await readFile(mei, 'utf8')).toBe(
      '---\ntitle: Mei\ntags:\n  - person\nsource: mcp-memory\ncreated: 2025-12-01T12:00:00+08:00\nupdated: 2025-12-01T12:00:00+08:00\n---\n# Mei\n\n## Facts\n- Closest friend in Hangzhou\n',
    );
    expect(await readFile(join(root, 'profile/organization/Lumen_Labs.md'), 'utf8')).toContain(
      '## Facts\n- Infra team sits on the 12th floor\n',
    );
    const edited = `${await readFile(mei, 'utf8')}- Visits in spring (added by hand)\n`;
    await writeFile(mei, edited);
    await git(root, 'commit', '-qam', 'hand edit');
    const second = await memProcess(['import', file], { cwd: root, env: ENV });
    expect(second.stdout).toBe(
      `${file} (MCP memory graph): 3 entities; 0 notes created, 0 updated, 0 facts and links added, 6 already in the vault\n`,
    );
    expect(await readFile(mei, 'utf8')).toBe(edited);
    expect(await commits(root)).toEqual([
      'hand edit',
      'mem: import memory.jsonl (2 notes created, 1 updated)',
      'init',
    ]);
  });

  it("appends an entity's facts to the person's own note a link to it reaches, wherever it is", async () => {
    const mei = '# Mei\n\nMy oldest friend.\n';
    const root = await gitVault({ 'People/Mei.md': mei }, { config: CONFIG });
    const run = await memProcess(['import', join(FIXTURES, 'mcp-memory/memory.jsonl')], {
      cwd: root,
      env: ENV,
    });
    expect(run.code).toBe(0);
    expect(await readFile(join(root, 'People/Mei.md'), 'utf8')).toBe(
      `${mei}\n## Facts\n- Closest friend in Hangzhou\n`,
    );
    expect(await readdir(join(root, 'profile/people')).catch(() => [])).toEqual([]);
  });

  it('refuses a file of no known format with a clear error, a non-zero exit and nothing written', async () => {
    const root = await gitVault({}, { config: CONFIG });
    for (const bad of ['not-an-export.json', 'broken.json']) {
      const run = await memProcess(['import', join(FIXTURES, 'bad', bad)], { cwd: root, env: ENV });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          `^mem: ${bad.replace('.', '\\.')}: (the content matches no format mem import reads|not valid JSON)`,
        ),
      );
      expect(run.stderr).toContain('--format chatgpt|claude|mcp-memory|vtuber|journal forces one');
    }
    const usage = await memProcess(
      ['import', join(FIXTURES, 'chatgpt/conversations.json'), '--format', 'csv'],
      {
        cwd: root,
        env: ENV,
      },
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('"format" must be one of chatgpt, claude, mcp-memory, vtuber, journal');
    expect(await days(root)).toEqual([]);
    expect(await commits(root)).toEqual(['init']);
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
  });
});

describe('mem import (in process)', () => {
  it('imports a Claude export, an Open-LLM-VTuber history folder and a journal folder, each once', async () => {
    const root = await gitVault({}, { config: { timezone: 'Asia/Shanghai', speakers: { user: 'Rain' } } });
    const env = { ...ENV };
    const claude = await mem(['import', join(FIXTURES, 'claude/conversations.json')], { cwd: root, env });
    expect(claude.stdout).toContain('(claude): 2 conversations; 4 entries added on 2 days');
    const vtuber = await mem(['import', join(FIXTURES, 'vtuber/chat_history')], { cwd: root, env });
    expect(vtuber.stdout).toBe(
      `${join(FIXTURES, 'vtuber/chat_history')} (vtuber): 1 conversation; 3 entries added on 2 days, 0 already in the vault\nskipped: 1 empty message\n`,
    );
    const journals = await mem(['import', join(FIXTURES, 'journals')], { cwd: root, env });
    expect(journals.stdout).toBe(
      `${join(FIXTURES, 'journals')} (journal): 3 journal days; 5 entries added on 3 days, 0 already in the vault\nskipped: 1 Markdown file without a date in its name\n`,
    );
    expect(await days(root)).toEqual([
      '2024-03-05.md',
      '2024-03-06.md',
      '2024-03-07.md',
      '2025-11-29.md',
      '2025-11-30.md',
      '2025-12-01.md',
    ]);
    // Open-LLM-VTuber writes local time without an offset: read in the vault's zone, not the machine's.
    const nov30 = await readFile(join(root, 'episodes/daily/2025-11-30.md'), 'utf8');
    expect(nov30).toContain('- 23:50 **Rain:** 今天好累 ^i');
    expect(nov30).toContain('- 23:50 **Mao:** 早点休息吧，明天还要上班呢。 ^i');
    expect(await readFile(join(root, 'episodes/daily/2024-03-06.md'), 'utf8')).toMatch(
      /\n- 00:00 \*\*Rain:\*\* Packed the books\.\n {2}Two boxes of them\. \^i[0-9a-f]{10}\n$/,
    );
    const made = await commits(root);
    expect(made).toHaveLength(4);
    for (const source of ['claude/conversations.json', 'vtuber/chat_history', 'journals']) {
      const again = await mem(['import', join(FIXTURES, source), '--json'], { cwd: root, env });
      expect(JSON.parse(again.stdout)).toMatchObject({ added: 0, days: [], paths: [] });
    }
    expect(await commits(root)).toEqual(made);
  });

  it('is refused in a folder that is not a vault, before anything is read or written', async () => {
    const dir = await makeVault({ 'notes.md': 'x\n' });
    await rm(join(dir, 'mem.config.json'));
    const run = await mem(['--vault', dir, 'import', join(FIXTURES, 'chatgpt/conversations.json')], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`mem: ${dir} is not a vault (no mem.config.json)`);
    expect(await readdir(dir)).toEqual(['notes.md']);
  });

  it('writes a day in time order, whatever order the export lists its conversations in', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const conversation = (title: string, time: string, text: string) => ({
      uuid: title,
      name: title,
      created_at: time,
      chat_messages: [{ sender: 'human', text, content: [{ type: 'text', text }], created_at: time }],
    });
    // Claude's export, newest conversation first
    const file = join(root, 'conversations.json');
    await writeFile(
      file,
      JSON.stringify([
        conversation('late', '2025-12-01T12:00:00Z', 'evening'),
        conversation('early', '2025-12-01T01:00:00Z', 'morning'),
      ]),
    );
    expect((await mem(['import', file], { cwd: root, env: ENV })).code).toBe(0);
    expect(await readFile(join(root, 'episodes/daily/2025-12-01.md'), 'utf8')).toMatch(
      /\n- 09:00 \*\*Rain:\*\* morning \^i[0-9a-f]{10}\n- 20:00 \*\*Rain:\*\* evening \^i[0-9a-f]{10}\n$/,
    );
  });

  it('says an export archive is unzipped first, and refuses a file that is no export', async () => {
    const root = await gitVault({ 'export.zip': 'PK', 'notes.txt': 'Rain: hi' }, { config: CONFIG });
    const zip = await mem(['import', 'export.zip'], { cwd: root, env: ENV });
    expect(zip.code).toBe(2);
    expect(zip.stderr).toMatch(
      /^mem: export\.zip: an export archive is unzipped first; import the conversations\.json inside it; mem import reads/,
    );
    const text = await mem(['import', 'notes.txt'], { cwd: root, env: ENV });
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(
      /^mem: notes\.txt: not a \.json, \.jsonl or \.md file; mem import reads .*mem ingest reads a plain transcript\)\n$/,
    );
    expect(await days(root)).toEqual([]);
  });

  it("reads a journal folder holding the vault's own episodes without importing them into themselves", async () => {
    const root = await gitVault({ 'Journal/2024-03-05.md': 'Rained all day.\n' }, { config: CONFIG });
    const first = await mem(['import', '.'], { cwd: root, env: ENV });
    expect(first.stdout).toBe('. (journal): 1 journal day; 1 entry added on 1 day, 0 already in the vault\n');
    const second = await mem(['import', '.'], { cwd: root, env: ENV });
    expect(second.stdout).toBe(
      ". (journal): 1 journal day; 0 entries added on 0 days, 1 already in the vault\nskipped: 1 the vault's own episode note\n",
    );
  });

  it('draws progress in notes for a memory graph', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const run = await mem(['import', join(FIXTURES, 'mcp-memory/memory.jsonl')], {
      cwd: root,
      env: ENV,
      isTTY: true,
    });
    expect(run.stderr).toBe(
      '\r[########................] 1/3 notes\r[################........] 2/3 notes\r[########################] 3/3 notes\n',
    );
  });

  it('redacts secrets in imported turns and observations unless --no-redact', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const key = 'sk-proj-abcDEF1234567890ghijKLMNop';
    await writeFile(
      join(root, 'memory.jsonl'),
      `${JSON.stringify({ type: 'entity', name: 'Mei', entityType: 'person', observations: [`Her key is ${key}`] })}\n`,
    );
    const run = await mem(['import', 'memory.jsonl'], { cwd: root, env: ENV });
    expect(run.stderr).toBe('mem: redacted 1 secret(s); use --no-redact to keep them\n');
    const note = await readFile(join(root, 'profile/people/Mei.md'), 'utf8');
    expect(note).toContain('- Her key is [REDACTED:openai-key]\n');
    expect(note).not.toContain(key);
  });

  it('draws progress on a terminal only', async () => {
    const root = await gitVault({}, { config: CONFIG });
    const file = join(FIXTURES, 'claude/conversations.json');
    const tty = await mem(['import', file], { cwd: root, env: ENV, isTTY: true });
    expect(tty.stderr).toBe('\r[############............] 1/2 days\r[########################] 2/2 days\n');
    const piped = await mem(['import', file], { cwd: root, env: ENV });
    expect(piped.stderr).toBe('');
  });
});
