import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/api/open-vault.js';
import { MemError } from '../../src/core/errors.js';
import { hashText } from '../../src/vault/write-note.js';
import { applyEdit } from '../../src/write/edit-note.js';
import { git, gitInit } from '../helpers/git.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const read = (root: string, path: string) => readFile(join(root, path), 'utf8');

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

const TEA = [
  '---',
  'title: Tea',
  '---',
  '# Tea',
  'Intro.',
  '',
  '## Habits',
  'Green in the morning.',
  '',
  '```md',
  '## Sources',
  '```',
  '',
  '### Detail',
  'Sencha.',
  '',
  '## Sources',
  'A book.',
  '',
].join('\n');

describe('applyEdit', () => {
  it('replaces a section up to the next heading of its level, past a `##` line in code and a subheading', () => {
    const out = applyEdit('insights/tea.md', TEA, { replaceSection: 'Habits', text: 'Oolong now.' });
    expect(out.text).toBe(
      TEA.replace(/## Habits\n[\s\S]*?(?=## Sources\nA book)/, '## Habits\n\nOolong now.\n\n'),
    );
  });

  it('inserts under a heading before its first subheading, and prepends after the title', () => {
    const under = applyEdit('insights/tea.md', TEA, { insertUnder: '## Habits', text: 'Black at night.' });
    // The fence is Habits' own content; `### Detail` is the first subheading.
    expect(under.text).toBe(TEA.replace('```\n\n### Detail', '```\n\nBlack at night.\n\n### Detail'));
    const top = applyEdit('insights/tea.md', TEA, { prepend: 'Top line.' });
    expect(top.text).toBe(TEA.replace('# Tea\n', '# Tea\nTop line.\n\n'));
  });

  it('keeps CRLF and adds the line break a note without one lacks', () => {
    expect(applyEdit('a.md', '# A\r\nx', { append: 'y\nz' }).text).toBe('# A\r\nx\r\n\r\ny\r\nz\r\n');
  });

  it('refuses NUL, empty text, a missing or doubled heading, and an unclosed fence that would swallow headings', () => {
    expect(() => applyEdit('a.md', TEA, { append: 'a\0b' })).toThrow(
      new MemError('INVALID_ARGUMENT', 'a.md: the text holds a NUL character'),
    );
    expect(() => applyEdit('a.md', TEA, { append: ' \n' })).toThrow(
      new MemError('INVALID_ARGUMENT', 'a.md: no text to add'),
    );
    expect(() => applyEdit('a.md', TEA, { insertUnder: 'Nope', text: 'x' })).toThrow(
      new MemError(
        'NOT_FOUND',
        'a.md: no heading "Nope"; its headings: # Tea, ## Habits, ### Detail, ## Sources',
      ),
    );
    expect(() => applyEdit('a.md', '# A\n\n# A\n', { insertUnder: 'A', text: 'x' })).toThrow(
      new MemError('INVALID_ARGUMENT', 'a.md: 2 headings are named "A" (lines 1, 3); rename one'),
    );
    expect(() => applyEdit('a.md', TEA, { insertUnder: 'Habits', text: '~~~\ncode' })).toThrow(
      /would change the headings after it/,
    );
  });
});

describe('Vault.editNote', () => {
  it('writes, commits only that note, and indexes it at once', async () => {
    const root = await makeVault({ 'insights/tea.md': TEA, 'insights/other.md': '# Other\n' });
    await gitInit(root);
    await writeFile(join(root, 'insights/other.md'), '# Other\nhand edit\n');
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.editNote('tea', { insertUnder: 'Sources', text: 'A website.' });
    expect(result).toMatchObject({ path: 'insights/tea.md', changed: true, committed: true });
    expect(await read(root, 'insights/tea.md')).toBe(
      `${TEA}\nA website.\n`.replace('A book.\n\n\nA', 'A book.\n\nA'),
    );
    expect(await git(root, 'log', '-1', '--format=%s')).toBe('mem: note insert insights/tea.md\n');
    expect(await git(root, 'status', '--porcelain')).toBe(' M insights/other.md\n');
    expect(vault.note('tea').hash).toBe(hashText(await read(root, 'insights/tea.md')));
    await vault.close();
  });

  it('refuses with CONFLICT when the note changed since it was read, and keeps the hand edit', async () => {
    const root = await makeVault({ 'insights/tea.md': TEA });
    const vault = await openVault({ path: root, cache: false });
    const hash = hashText(TEA);
    const hand = `${TEA}Hand edit.\n`;
    await writeFile(join(root, 'insights/tea.md'), hand);
    await expect(vault.editNote('insights/tea', { append: 'mine' }, { expectedHash: hash })).rejects.toThrow(
      new MemError('CONFLICT', 'insights/tea.md changed on disk since it was read; nothing was written'),
    );
    expect(await read(root, 'insights/tea.md')).toBe(hand);
    await vault.close();
  });

  it('refuses episode notes and paths outside the vault', async () => {
    const day = '---\ndate: 2026-11-30\n---\n# 2026-11-30\n';
    const root = await makeVault({ 'episodes/2026/2026-11-30.md': day });
    const vault = await openVault({ path: root, cache: false });
    await expect(vault.editNote('episodes/2026/2026-11-30', { append: 'x' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('append-only through remember'),
    });
    expect(await read(root, 'episodes/2026/2026-11-30.md')).toBe(day);
    await expect(vault.editNote('../escape', { append: 'x' })).rejects.toBeInstanceOf(MemError);
    await vault.close();
  });

  it('lets createNote take a body under the title', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.createNote({ path: 'insights/x', body: 'First line.\r\n\u0007Second.\n\n' });
    expect((await read(root, result.path)).endsWith('---\n# x\n\nFirst line.\nSecond.\n')).toBe(true);
    await vault.close();
  });
});

describe('mem note append|prepend|section|insert', () => {
  it('edits with exit 0 and --json, and exits 1 on CONFLICT, a missing heading or ../ and 2 on an episode (append-only: a refused argument)', async () => {
    const root = await makeVault({ 'insights/tea.md': TEA, 'episodes/2026/2026-11-30.md': '# 2026-11-30\n' });
    const ok = await mem(['--vault', root, 'note', 'append', 'tea', 'Last.', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ path: 'insights/tea.md', changed: true });
    expect(await read(root, 'insights/tea.md')).toBe(`${TEA}\nLast.\n`);

    const section = await mem(['--vault', root, 'note', 'section', 'tea', 'Sources', 'None.']);
    expect(section).toMatchObject({ code: 0, stdout: 'insights/tea.md\n' });
    expect(await read(root, 'insights/tea.md')).toMatch(/## Sources\n\nNone\.\n$/);

    const prepend = await mem(['--vault', root, 'note', 'prepend', 'tea', 'Top.']);
    expect(prepend.code).toBe(0);
    const insert = await mem(['--vault', root, 'note', 'insert', 'tea', 'Habits', '-'], {
      stdin: 'More.\nFrom stdin.\n',
    });
    expect(insert.code).toBe(0);
    expect(await read(root, 'insights/tea.md')).toContain('```\n\nMore.\nFrom stdin.\n\n### Detail');

    const before = await read(root, 'insights/tea.md');
    const conflict = await mem(['--vault', root, 'note', 'append', 'tea', 'x', '--hash', hashText('old')]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('changed on disk since it was read');
    const missing = await mem(['--vault', root, 'note', 'section', 'tea', 'Nope', 'x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no heading "Nope"');
    const episode = await mem(['--vault', root, 'note', 'append', 'episodes/2026/2026-11-30', 'x']);
    expect(episode.code).toBe(2);
    expect(episode.stderr).toContain('append-only');
    const outside = await mem(['--vault', root, 'note', 'append', '../x', 'x']);
    expect(outside.code).toBe(1);
    const nul = await mem(['--vault', root, 'note', 'append', 'tea', 'a\0b']);
    expect(nul).toMatchObject({ code: 2, stderr: expect.stringContaining('NUL') });
    expect(await read(root, 'insights/tea.md')).toBe(before);
  });
});
