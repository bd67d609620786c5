// Same-day neighbours are context, not hits (issue 32, item 5): the entries written around a match
// come into compile (the reply beside a question) but never answer recall, /memory/search or MCP
// on their own: "trail shoes" returned the two dentist entries of the same day.
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const DAY = [
  '---\ndate: 2026-11-20\n---\n# 2026-11-20\n',
  '- 09:00 **Rain:** Dentist appointment moved to Thursday at 4 ^e1',
  '- 09:01 **小满:** Noted, the dentist on Thursday at 4. ^e2',
  '- 12:30 **Rain:** I want new trail shoes before the race, the old ones are worn through ^e3',
  '- 12:31 **小满:** Which trail are you racing on? ^e4',
  '- 18:00 **Rain:** The dentist called again, bring the insurance card ^e5',
  '',
].join('\n');

const NOW = new Date('2026-11-21T10:00:00+08:00');

describe('same-day neighbours', () => {
  it('are no hits of recall', async () => {
    const vault = await openVault({
      path: await makeVault({ 'episodes/daily/2026-11-20.md': DAY }),
      cache: false,
    });
    const { hits } = vault.recall('trail shoes', { k: 8, now: NOW });
    expect(hits.map((h) => h.anchor)).toContain('^e3');
    expect(hits.filter((h) => /dentist/i.test(h.text))).toEqual([]);
    // A neighbour that matches words of its own is a hit as before.
    const race = vault.recall('trail race', { k: 8, now: NOW }).hits.map((h) => h.anchor);
    expect(race).toEqual(expect.arrayContaining(['^e3', '^e4']));
    await vault.close();
  });

  it('are context that compile may still show beside the hit', async () => {
    const vault = await openVault({
      path: await makeVault({ 'episodes/daily/2026-11-20.md': DAY }),
      cache: false,
    });
    const result = vault.compile({ message: 'trail shoes', budget: 2000, now: NOW, shares: { recent: 0 } });
    const relevant = result.sections.find((s) => s.name === 'relevant');
    const reasons = (relevant?.items ?? []).map((i) => `${i.anchor} ${i.reason}`);
    expect(reasons.some((r) => r.startsWith('^e3'))).toBe(true);
    expect(reasons.some((r) => /next to \^e3/.test(r))).toBe(true);
    await vault.close();
  });
});
