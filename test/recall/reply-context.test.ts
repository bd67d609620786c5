import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const day = (date: string, lines: string[]) => `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`;
const NOW = new Date('2026-05-20T10:00:00Z');
const CONFIG = { config: { timezone: 'UTC', git: { autoCommit: false } } };

/** The topic is named by one turn and answered by the next, which never names it. */
const FILES = {
  'episodes/daily/2026-05-02.md': day('2026-05-02', [
    '- 10:00 **Mei:** Do you still go to the pottery class on Sundays? ^e1',
    '- 10:01 **Rain:** Yes! Last week I made a blue vase for my mother. ^e2',
    '- 10:02 **Mei:** Lovely, she will like that. ^e3',
    '- 10:03 **Rain:** The weather is turning warm again. ^e4',
  ]),
  'episodes/daily/2026-05-10.md': day('2026-05-10', [
    '- 09:00 **Rain:** I made pancakes with blueberries this morning. ^e1',
  ]),
};

describe('a reply borrows the score of the turn before it', () => {
  it('ranks the reply above an entry that shares only its own words with the question', async () => {
    const vault = await openVault({ path: await makeVault(FILES, CONFIG), cache: false });
    const hits = vault.recall('What did Rain make at the pottery class?', { now: NOW }).hits;
    const ids = hits.map((h) => `${h.date}#${h.anchor}`);
    expect(ids.indexOf('2026-05-02#^e2')).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf('2026-05-02#^e2')).toBeLessThan(ids.indexOf('2026-05-10#^e1'));
    const reply = hits.find((h) => h.date === '2026-05-02' && h.anchor === '^e2');
    const pancakes = hits.find((h) => h.date === '2026-05-10');
    expect(reply?.reasons.join('; ')).toMatch(/follows a match on its day/);
    // Both match "make" alone; the reply also borrows a third of the pottery turn's score.
    expect(reply?.parts.text ?? 0).toBeGreaterThan((pancakes?.parts.text ?? 1) + 0.2);
  });

  it('makes no hit of an entry that none of the query words reached', async () => {
    const vault = await openVault({ path: await makeVault(FILES, CONFIG), cache: false });
    const hits = vault.recall('pottery class', { now: NOW }).hits;
    expect(hits.map((h) => h.anchor)).toEqual(['^e1']);
    // Compile still shows the reply beside the turn it answers.
    const compiled = vault.compile({ message: 'pottery class', budget: 600, now: NOW });
    expect(compiled.markdown).toContain('> Yes! Last week I made a blue vase for my mother.');
  });

  it('stops at the end of the day and after two entries', async () => {
    const vault = await openVault({ path: await makeVault(FILES, CONFIG), cache: false });
    const hits = vault.recall('pottery weather', { now: NOW }).hits;
    const weather = hits.find((h) => h.anchor === '^e4');
    // Three entries after the pottery turn: it has only its own word.
    expect(weather?.reasons.join('; ')).not.toMatch(/follows a match/);
  });
});
