import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const FILLER = 'That sounds nice, tell me more.';
const TRIPS: Array<[string, string]> = [
  ['Hangzhou', 'the trail ended at a temple with a tea house, oolong and almond cakes'],
  ['Suzhou', 'we rowed a boat past the canal gardens and ate sweet osmanthus rice'],
  ['Nanjing', 'the city wall was cold and windy, duck blood soup afterwards'],
  ['Xiamen', 'a ferry to the island, pianos everywhere and mango ice'],
  ['Qingdao', 'beer museum, seaweed on the rocks, a red lighthouse'],
  ['Chengdu', 'pandas asleep in bamboo, numbing hotpot until midnight'],
  ['Kyoto', 'orange gates up the mountain, a fox statue, matcha parfait'],
  ['Osaka', 'castle moat, takoyaki stall, neon signs by the river'],
];

/** Eight trips told the same way: the story, the companion's filler, and a detail of its own. */
function diary(): Record<string, string> {
  const files: Record<string, string> = {};
  TRIPS.forEach(([city, detail], i) => {
    const date = `2026-10-${String(i + 10).padStart(2, '0')}`;
    files[`episodes/daily/${date}.md`] = [
      `---\ndate: ${date}\n---\n# ${date}\n`,
      `- 20:00 **Rain:** Weekend trip to ${city}, we went hiking in the hills ^e1`,
      `- 20:01 **小满:** ${FILLER} ^e2`,
      `- 20:02 **Rain:** In ${city} ${detail} ^e3`,
      `- 20:03 **小满:** ${FILLER} ^e4`,
      '',
    ].join('\n');
  });
  return files;
}

describe('neighbours and repeats in compile', () => {
  it('writes an entry that says the same as one already taken only once', async () => {
    const vault = await openVault({ path: await makeVault(diary()), cache: false });
    const result = vault.compile({
      message: 'Which trip had hiking?',
      budget: 600,
      now: new Date('2026-11-01T10:00:00Z'),
    });
    const fillers = result.markdown.split('\n').filter((l) => l.endsWith(FILLER));
    expect(fillers.length).toBeLessThanOrEqual(1);
    // The room goes to what the trips were: their details.
    const details = TRIPS.filter(([, detail]) => result.markdown.includes(detail));
    expect(details.length).toBeGreaterThanOrEqual(4);
  });

  it('brings a neighbour in for what it adds: a detail outranks a filler beside the same match', async () => {
    const vault = await openVault({ path: await makeVault(diary()), cache: false });
    const hits = vault.recall('Weekend trip to Kyoto', { k: 10, now: new Date('2026-11-01T10:00:00Z') }).hits;
    const kyoto = hits.filter((h) => h.path.endsWith('2026-10-16.md'));
    const filler = kyoto.find((h) => h.anchor === '^e2');
    const detail = kyoto.find((h) => h.anchor === '^e3');
    expect(detail).toBeDefined();
    expect(detail?.parts.graph ?? 0).toBeGreaterThan(filler?.parts.graph ?? 0);
  });
});
