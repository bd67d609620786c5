import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, copyExampleVault, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const day = (date: string, lines: string[]) => `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`;

describe('entries of the same minute', () => {
  it('come out in the order they were written, whatever their block ids', async () => {
    // Twenty turns in one minute, ids e1..e20 and then hash ids: `^e10` sorts before `^e2` as a string.
    const turns = Array.from({ length: 20 }, (_, i) =>
      i < 10
        ? `- 10:00 **Rain:** turn ${i + 1} ^e${i + 1}`
        : `- 10:00 **小满:** turn ${i + 1} ^h${(20 - i).toString(36)}x`,
    );
    const vault = await openVault({
      path: await makeVault({ 'episodes/daily/2026-11-29.md': day('2026-11-29', turns) }),
      cache: false,
    });
    const result = vault.compile({
      message: 'hello',
      history: ['hi'],
      budget: 2000,
      shares: { recent: 1 },
      now: new Date('2026-11-30T10:00:00Z'),
    });
    const recent = result.sections.find((s) => s.name === 'recent')?.items.map((i) => i.text) ?? [];
    // The newest twelve (config `recentEntries`), oldest first.
    expect(recent).toEqual(Array.from({ length: 12 }, (_, i) => `turn ${i + 9}`));
    // Each entry's words are the quote line under its list line.
    const lines = result.markdown.split('\n').filter((l) => l.startsWith('> '));
    expect(lines.at(-1)).toMatch(/turn 20$/);
  });
});

describe('a question about a time', () => {
  it('ranks the entries of the range by the words left beside the time (上周末去哪了)', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const result = vault.recall('上周末去哪了', { k: 3, now: new Date('2026-11-24T10:00:00+08:00') });
    expect(result.range?.from).toBe('2026-11-21');
    expect(result.hits[0]?.parts.text).toBeGreaterThan(0);
    expect(result.hits.map((h) => h.id)).toContain('episodes/daily/2026-11-22.md#^e6');
  });

  it('finds the entry that answers it among later chatter of the same weekend', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2026-11-14.md': day('2026-11-14', [
          '- 09:00 **Rain:** 早上好 ^e1',
          '- 18:00 **Rain:** 上周末去九溪爬山了，腿还酸 ^e2',
          '- 21:00 **Rain:** 晚饭吃了面 ^e3',
          '- 22:00 **Rain:** 看了一部电影 ^e4',
          '- 23:00 **Rain:** 晚安 ^e5',
        ]),
        'episodes/daily/2026-11-15.md': day('2026-11-15', [
          '- 10:00 **Rain:** 今天在家躺着 ^e1',
          '- 20:00 **Rain:** 明天又要上班了 ^e2',
        ]),
      }),
      cache: false,
    });
    const now = new Date('2026-11-17T10:00:00+08:00');
    const result = vault.recall('我上周末去哪里了？', { k: 3, now });
    expect(result.range?.onlyTime).toBe(true);
    expect(result.hits[0]?.id).toBe('episodes/daily/2026-11-14.md#^e2');
    const compiled = vault.compile({ message: '我上周末去哪里了？', budget: 300, now });
    expect(compiled.markdown).toContain('九溪');
  });
});
