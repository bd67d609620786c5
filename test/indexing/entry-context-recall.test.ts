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

describe('recall finds a reply by the topic of the turn before it (the entry context field)', () => {
  it('ranks the reply above an entry that shares only its own words with the question', async () => {
    const vault = await openVault({ path: await makeVault(FILES, CONFIG), cache: false });
    const hits = vault.recall('What did Rain make at the pottery class?', { now: NOW }).hits;
    const ids = hits.map((h) => `${h.date}#${h.anchor}`);
    expect(ids.indexOf('2026-05-02#^e2')).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf('2026-05-02#^e2')).toBeLessThan(ids.indexOf('2026-05-10#^e1'));
  });

  it('puts the turn that names the topic first, the replies after it, and compile shows the reply', async () => {
    const vault = await openVault({ path: await makeVault(FILES, CONFIG), cache: false });
    const hits = vault.recall('pottery class', { now: NOW }).hits;
    expect(hits[0]?.anchor).toBe('^e1');
    // Three entries after the pottery turn, the weather is not about pottery.
    expect(hits.map((h) => h.anchor)).not.toContain('^e4');
    const compiled = vault.compile({ message: 'pottery class', budget: 600, now: NOW });
    expect(compiled.markdown).toContain('Yes! Last week I made a blue vase for my mother.');
  });
});
