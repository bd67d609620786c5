import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

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
    const lines = result.markdown.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.at(-1)).toMatch(/turn 20$/);
  });
});
