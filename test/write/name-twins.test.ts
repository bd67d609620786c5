// Write verbs and reflect check every name of their plan before the first write: a note on disk in
// two Unicode forms is refused (mem could act on the other one), a new name that is a twin of one on
// disk or in the same plan is refused, and so is a name too long for the disk. The rest of a reflect
// answer is still applied and committed.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { git, gitVault } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const NFC = 'café'.normalize('NFC');
const NFD = 'café'.normalize('NFD');

ignoreEnvVault();
afterEach(async () => {
  await cleanupVaults();
});

/** A committed vault holding `insights/café.md` twice: in NFC and in NFD. */
async function twinVault(): Promise<string> {
  const root = await gitVault({
    [`insights/${NFC}.md`]: '# Café (NFC)\n',
    [`insights/${NFD}.md`]: '# Café (NFD)\n',
    'insights/tea.md': `# Tea\nSee [[${NFC}]].\n`,
  });
  return root;
}

async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(join(root, 'insights'))) {
    out[name] = await readFile(join(root, 'insights', name), 'utf8');
  }
  return out;
}

describe('a note on disk in two Unicode forms', () => {
  it.each([
    [['mv', `insights/${NFC}.md`, 'insights/coffee.md']],
    [['mv', `insights/${NFD}.md`, 'insights/coffee.md']],
    [['forget', `insights/${NFC}.md`, '--hard']],
    [['forget', `insights/${NFD}.md`, '--hard']],
    [['forget', `insights/${NFC}.md`]],
    [['note', 'set', `insights/${NFC}.md`, 'importance=0.9']],
  ])('mem %j is refused and changes nothing', async (args) => {
    const root = await twinVault();
    const before = await tree(root);
    const head = await git(root, 'rev-parse', 'HEAD');

    const out = await mem(['--vault', root, ...args]);

    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /same name in another Unicode form \(NFC\/NFD\), so mem cannot tell which file is meant/,
    );
    expect(await tree(root)).toEqual(before);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe('a note stored in NFD alone', () => {
  it('forget --hard deletes it in a commit, and mem undo brings it back byte for byte', async () => {
    const root = await gitVault({ [`insights/${NFD}.md`]: '# Café\n', 'insights/tea.md': '# Tea\n' });
    const out = await mem(['--vault', root, 'forget', `insights/${NFC}.md`, '--hard']);
    expect(out.stderr).toBe('');
    expect(await readdir(join(root, 'insights'))).toEqual(['tea.md']);
    expect(await git(root, 'status', '--porcelain')).toBe('');
    const undo = await mem(['--vault', root, 'undo']);
    expect(undo.stderr).toBe('');
    expect(await tree(root)).toEqual({ [`${NFD}.md`]: '# Café\n', 'tea.md': '# Tea\n' });
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });
});

describe('a new name that is a twin, or too long', () => {
  it('mv to a case twin of another note is refused; a change of case of the note itself is not', async () => {
    const root = await gitVault({ 'insights/Tea.md': '# Tea\n', 'insights/coffee.md': '# Coffee\n' });
    const out = await mem(['--vault', root, 'mv', 'insights/coffee.md', 'insights/TEA.md']);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'mem: insights/TEA.md: insights/Tea.md is already there, and differs only in case or Unicode form (one file on macOS and Windows)\n',
    );
    expect((await readdir(join(root, 'insights'))).sort()).toEqual(['Tea.md', 'coffee.md']);
    const own = await mem(['--vault', root, 'mv', 'insights/coffee.md', 'insights/Coffee.md']);
    expect(own.stderr).toBe('');
    expect((await readdir(join(root, 'insights'))).sort()).toEqual(['Coffee.md', 'Tea.md']);
  });

  it('mv to a 300-byte name is refused before any write', async () => {
    const root = await gitVault({ 'insights/tea.md': '# Tea\n', 'insights/x.md': '[[tea]]\n' });
    const out = await mem(['--vault', root, 'mv', 'insights/tea.md', `insights/${'茶'.repeat(100)}.md`]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/the file name is 303 bytes in UTF-8; a note's name may have at most 225/);
    expect(await readFile(join(root, 'insights/x.md'), 'utf8')).toBe('[[tea]]\n');
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
  });

  it('note new refuses a case twin', async () => {
    const root = await gitVault({ 'insights/Tea.md': '# Tea\n' });
    const out = await mem(['--vault', root, 'note', 'new', 'insights/tea']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/insights\/Tea\.md is already there, and differs only in case/);
  });
});

describe('reflect checks the names of its whole answer before writing', () => {
  const DAY = 'episodes/daily/2026-11-29.md';
  const SRC = ['[[2026-11-29#^e1]]'];
  const insight = (path: string) => ({
    op: 'create_insight',
    path,
    title: 'Climbing',
    body: 'Rain climbs ([[2026-11-29#^e1]]).',
    sources: SRC,
  });
  let llm: Awaited<ReturnType<typeof startLlmStub>>;
  /** `mem reflect --json` on `root` against the stub model, at the tests' moment. */
  const reflectJson = (root: string) =>
    mem([
      'reflect',
      '--vault',
      root,
      '--base-url',
      llm.baseURL,
      '--now',
      '2026-11-30T10:00:00+08:00',
      '--json',
    ]);
  let answer = '';
  beforeAll(async () => {
    llm = await startLlmStub(() => answer);
  });
  afterAll(() => llm.close());

  it('dup.md and DUP.md: the second is rejected; a 300-byte name is rejected; the rest is written and committed', async () => {
    const root = await gitVault(
      {
        [DAY]: '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** I went climbing ^e1\n',
        'insights/Tea.md': '# Tea\n',
      },
      { config: { timezone: 'Asia/Shanghai' } },
    );
    answer = JSON.stringify({
      operations: [
        insight('insights/dup.md'),
        insight('insights/DUP.md'),
        insight(`insights/${'é'.repeat(150)}.md`),
        insight('insights/tea.md'),
        { op: 'mark_reflected', path: DAY },
      ],
    });
    const out = await reflectJson(root);
    expect(out.stderr).toBe('');
    const result = JSON.parse(out.stdout) as {
      rejected: Array<{ index: number; reason: string }>;
      files: string[];
    };
    expect(result.rejected.map((r) => [r.index, r.reason])).toEqual([
      [
        1,
        'path insights/DUP.md: insights/DUP.md and insights/dup.md differ only in case or Unicode form, and would be one file on macOS and Windows',
      ],
      [2, expect.stringMatching(/the file name is 303 bytes in UTF-8/)],
      [
        3,
        'path insights/tea.md: insights/Tea.md is already there, and differs only in case or Unicode form (one file on macOS and Windows)',
      ],
    ]);
    expect(result.files.sort()).toEqual([DAY, 'insights/dup.md']);
    expect((await readdir(join(root, 'insights'))).sort()).toEqual(['Tea.md', 'dup.md']);
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
  });

  it('a file that fails to write mid-plan is reported as skipped, and what was written is committed', async () => {
    const root = await gitVault(
      { [DAY]: '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** I went climbing ^e1\n' },
      { config: { timezone: 'Asia/Shanghai' } },
    );
    // A file where the note's folder should be: validation passes (the name is fine), the write fails.
    await writeFile(join(root, 'insights'), 'not a folder\n');
    await git(root, 'add', 'insights');
    await git(root, 'commit', '-qm', 'a file named insights');
    answer = JSON.stringify({
      operations: [insight('insights/climbing.md'), { op: 'mark_reflected', path: DAY }],
    });
    const out = await reflectJson(root);
    expect(out.stderr).toBe('');
    const result = JSON.parse(out.stdout) as {
      rejected: Array<{ index: number }>;
      files: string[];
      committed: boolean;
    };
    expect(result.rejected.map((r) => r.index)).toEqual([0]);
    expect(result.files).toEqual([DAY]);
    expect(result.committed).toBe(true);
    expect((await git(root, 'status', '--porcelain')).trim()).toBe('');
  });
});
