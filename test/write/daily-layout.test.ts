import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { git, gitVault } from '../helpers/git.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const AT = new Date('2026-12-02T21:05:00+08:00');

/** An adopted Obsidian vault's layout: days in Journal/<year>/<name>, mem's layers under AI/. */
const ADOPTED = {
  timezone: 'Asia/Shanghai',
  layout: {
    persona: 'AI/persona',
    profile: 'AI/profile',
    episodes: 'AI/episodes',
    insights: 'AI/insights',
    archive: 'AI/archive',
    daily: { folder: 'Journal', format: 'YYYY/DD.MM.YYYY dddd', heading: 'Memory' },
  },
};

describe('daily notes where the layout puts them', () => {
  it("writes, indexes, recalls and cites a day in the layout's folder and date format", async () => {
    const root = await makeVault({ 'AI/profile/user.md': '# User\nRain, a nurse.\n' }, { config: ADOPTED });
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.remember({
      text: 'My knee hurts after the marathon',
      speaker: 'Rain',
      at: AT,
    });
    expect(result.path).toBe('Journal/2026/02.12.2026 Wednesday.md');
    expect(result.link).toBe('[[02.12.2026 Wednesday#^e1]]');
    const note = vault.note(result.path);
    expect(note.layer).toBe('episodes');
    expect(note.sections.find((s) => s.anchor === '^e1')?.date).toBe('2026-12-02');
    // The citation resolves to the note, as Obsidian would resolve it.
    expect(vault.note('02.12.2026 Wednesday').path).toBe(result.path);
    const hit = vault.recall('marathon knee', { now: AT }).hits[0];
    expect(hit?.path).toBe(result.path);
    const context = vault.compile({ message: 'how was the marathon?', now: AT });
    expect(context.markdown).toContain('My knee hurts after the marathon');
    expect(context.markdown).toContain('Rain, a nurse.');
    expect(context.markdown).toContain('[[02.12.2026 Wednesday]] (2026-12-02)\n- ^e1 Rain:');
    await vault.close();
  });

  it("cites an entry by a link that reaches its own day, also when the day's name alone is every month's", async () => {
    const config = { timezone: 'UTC', layout: { daily: { folder: 'Journal', format: 'YYYY/MM/DD' } } };
    const root = await makeVault({ 'Journal/2026/11/02.md': '# Nov 2\n- 09:00 old entry ^e1\n' }, { config });
    const vault = await openVault({ path: root, cache: false });
    const result = await vault.remember({ text: 'tea', at: new Date('2026-12-02T09:00:00Z') });
    expect(result.path).toBe('Journal/2026/12/02.md');
    expect(result.link).toBe('[[Journal/2026/12/02#^e1]]');
    expect(vault.note('Journal/2026/12/02').path).toBe(result.path);
    // A name no other note has stays short.
    const plain = await makeVault({}, { config: { timezone: 'UTC' } });
    const other = await openVault({ path: plain, cache: false });
    expect((await other.remember({ text: 'tea', at: new Date('2026-12-02T09:00:00Z') })).link).toBe(
      '[[2026-12-02#^e1]]',
    );
    await vault.close();
    await other.close();
  });

  it("commits no invented version of a person's daily note git does not have, by remember or a companion's turn", async () => {
    const config = { timezone: 'UTC', layout: { daily: { folder: 'Daily', heading: 'Memory' } } };
    const root = await gitVault({ 'Daily/2026-12-01.md': '# Mon\nCommitted day.\n' }, { config });
    // Obsidian made today's and tomorrow's notes; the person has not committed them.
    await writeFile(join(root, 'Daily/2026-12-02.md'), '# My day\r\nPerson text.\r\n');
    await writeFile(join(root, 'Daily/2026-12-03.md'), '# Next day\nMore person text.\n');
    const vault = await openVault({ path: root, cache: false });
    await vault.remember({ text: 'entry one', at: new Date('2026-12-02T09:00:00Z') });
    await vault.addExchange({ user: 'hello', assistant: 'hi', at: new Date('2026-12-03T09:00:00Z') });
    // A day mem makes itself is committed as written; a committed day gets mem's lines.
    await vault.remember({ text: 'new day', at: new Date('2026-12-04T09:00:00Z') });
    await vault.remember({ text: 'old day', at: new Date('2026-12-01T09:00:00Z') });
    await vault.close();
    const tracked = (await git(root, 'ls-files', 'Daily')).trim().split('\n');
    expect(tracked).toEqual(['Daily/2026-12-01.md', 'Daily/2026-12-04.md']);
    expect(await git(root, 'show', 'HEAD:Daily/2026-12-04.md')).toBe(
      await readFile(join(root, 'Daily/2026-12-04.md'), 'utf8'),
    );
    expect(await git(root, 'show', 'HEAD:Daily/2026-12-01.md')).toContain('old day ^e1');
    expect(await readFile(join(root, 'Daily/2026-12-02.md'), 'utf8')).toContain('entry one ^e1');
    expect(await readFile(join(root, 'Daily/2026-12-03.md'), 'utf8')).toContain('hello');
  });

  it('starts a new day from the template note the layout names', async () => {
    const root = await makeVault(
      {
        'Templates/Daily.md':
          '---\ntags: [daily]\n---\n# {{title}}\n{{date:dddd D MMMM}}, {{yesterday}} was before\n\n## Tasks\n- [ ] \n',
      },
      {
        config: {
          ...ADOPTED,
          layout: { ...ADOPTED.layout, daily: { ...ADOPTED.layout.daily, template: 'Templates/Daily' } },
        },
      },
    );
    const vault = await openVault({ path: root, cache: false });
    const { path } = await vault.remember({ text: 'first words', at: AT });
    expect(await readFile(join(root, path), 'utf8')).toBe(
      '---\ntags: [daily]\n---\n# 02.12.2026 Wednesday\nWednesday 2 December, 2026/01.12.2026 Tuesday was before\n\n## Tasks\n- [ ] \n\n## Memory\n- 21:05 first words ^e1\n',
    );
    await vault.close();
  });

  it('rebuilds a cache made under another layout instead of trusting its layers', async () => {
    const files = { 'Journal/2026/02.12.2026 Wednesday.md': '# Wed\n- 09:00 hello ^e1\n' };
    const root = await makeVault(files, { config: { timezone: 'Asia/Shanghai' } });
    await (await openVault({ path: root })).close();
    await writeFile(join(root, 'mem.config.json'), JSON.stringify(ADOPTED));
    const notices: string[] = [];
    const vault = await openVault({ path: root, onNotice: (m) => notices.push(m) });
    expect(vault.note('Journal/2026/02.12.2026 Wednesday.md').layer).toBe('episodes');
    expect(notices.join('\n')).toMatch(/another layout/);
    await vault.close();
  });
});

// A person's daily note as Obsidian users write them: headings, tasks, free text, a code block that
// holds a "## Memory" line (not a heading), CRLF or LF.
const personLine = fc.oneof(
  fc.constantFrom(
    '## Morning',
    '## Evening',
    '### Notes',
    '- [ ] call mum',
    '- [x] run 5k',
    'Felt good.',
    '',
  ),
  fc.stringMatching(/^[a-z][a-z ]{0,19}$/),
  fc.constant('```\n## Memory\n```'),
);
const personNote = fc
  .record({ lines: fc.array(personLine, { maxLength: 12 }), crlf: fc.boolean() })
  .map(({ lines, crlf }) => {
    const text = `# 2026-12-02\n${lines.join('\n')}\n`;
    return crlf ? text.replaceAll('\n', '\r\n') : text;
  });

describe("mem's entries in a daily note a person writes", () => {
  it("go under mem's own heading, and every other byte of the person's note stays as it was", async () => {
    await fc.assert(
      fc.asyncProperty(
        personNote,
        fc.integer({ min: 1, max: 3 }),
        fc.array(personLine, { maxLength: 3 }),
        async (text, n, later) => {
          const config = {
            timezone: 'Asia/Shanghai',
            layout: { daily: { folder: 'Daily', heading: '## Memory' } },
          };
          const root = await makeVault({ 'Daily/2026-12-02.md': text }, { config });
          const vault = await openVault({ path: root, cache: false });
          for (let i = 0; i < n; i++) await vault.remember({ text: `entry ${i}`, at: AT });
          // The person goes on writing after mem's section, from a new paragraph (a line right under
          // a list item would continue the item); mem's next entry still joins its own section.
          const eol = text.includes('\r\n') ? '\r\n' : '\n';
          const now = await readFile(join(root, 'Daily/2026-12-02.md'), 'utf8');
          const edited = later.length ? `${now}${eol}${later.join(eol)}${eol}` : now;
          await writeFile(join(root, 'Daily/2026-12-02.md'), edited);
          await vault.refresh();
          await vault.remember({ text: 'last entry', at: AT });
          const after = await readFile(join(root, 'Daily/2026-12-02.md'), 'utf8');
          const note = vault.note('Daily/2026-12-02.md');
          const entries = note.sections.filter((s) => s.kind === 'block');
          expect(entries.map((s) => s.text)).toEqual([
            ...Array.from({ length: n }, (_, i) => `entry ${i}`),
            'last entry',
          ]);
          // Every entry sits under mem's heading, however the person's text around it reads.
          expect(entries.every((s) => s.heading === 'Memory')).toBe(true);
          // Without mem's lines and its heading, the note is the person's, byte for byte.
          const mine = /^(- 21:05 (entry \d|last entry) \^e\d+|## Memory)\r?$/;
          const strip = (t: string) =>
            t
              .split('\n')
              .filter((line) => !mine.test(line))
              .join('\n');
          expect(strip(after).replace(/(\r?\n)+$/, '')).toBe(strip(edited).replace(/(\r?\n)+$/, ''));
          await vault.close();
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
