import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

const NOW = new Date('2026-11-30T10:00:00+08:00');

const FILES: Record<string, string> = {
  'persona/identity.md': '---\npinned: true\n---\n# 小满\nI am 小满, a warm companion.\n',
  'profile/user.md':
    '---\ntitle: Rain\npinned: true\naliases: [林雨]\n---\n# Rain\n## Home\nLives in [[Shanghai]] since November.\n',
  'profile/places/Shanghai.md':
    '---\naliases: [魔都]\nimportance: 0.8\n---\n# Shanghai\nA big city by the river.\n',
  'profile/people/mei.md':
    "---\ntitle: Mei\naliases: [美美]\n---\n# Mei\nRain's best friend from university. Loves hiking.\n",
  'insights/facts/lives-in-hangzhou.md':
    '---\nstatus: superseded\nsuperseded_by: "[[lives-in-shanghai]]"\n---\n# Rain lives in Hangzhou\nRain lives in Hangzhou, near the lake.\n',
  'insights/facts/lives-in-shanghai.md':
    '---\nsupersedes: "[[lives-in-hangzhou]]"\nsources: ["[[2026-11-12#^e3]]"]\nconfidence: 0.9\n---\n# Rain lives in Shanghai\nRain moved to [[Shanghai]] for a new job ([[2026-11-12#^e3]]).\n',
  'episodes/daily/2026-11-12.md': [
    '---\ndate: 2026-11-12\n---\n# 2026-11-12\n',
    '- 09:00 **Rain:** Good morning, coffee first. ^e1',
    '- 09:05 **小满:** 早安！今天有什么计划？ ^e2',
    '- 09:14 **Rain:** 我下个月搬到上海工作，公司在徐汇。 ^e3',
    '',
  ].join('\n'),
  'episodes/daily/2026-11-28.md': [
    '---\ndate: 2026-11-28\n---\n# 2026-11-28\n',
    '- 10:00 (event) Rain went hiking with [[mei|Mei]] in the hills. ^e1',
    '- 18:00 **Rain:** The hiking trip was tiring but fun. ^e2',
    '',
  ].join('\n'),
  'episodes/daily/2026-10-01.md':
    '---\ndate: 2026-10-01\n---\n# 2026-10-01\n\n- 08:00 **Rain:** First hiking trip of the autumn. ^e1\n',
};

let vault: Vault;

beforeAll(async () => {
  vault = await openVault({ path: await makeVault(FILES), cache: false });
});
afterAll(cleanupVaults);

const ids = (query: string, options = {}) =>
  vault.recall(query, { now: NOW, ...options }).hits.map((h) => h.id);

describe('recall ranking', () => {
  it('finds a Chinese word inside a longer Chinese sentence', () => {
    const result = ids('上海', { k: 4 });
    expect(result[0]).toBe('episodes/daily/2026-11-12.md#^e3');
  });

  it('ranks the fact named by an English query above the notes that only mention it', () => {
    const result = ids('Rain lives in Shanghai', { k: 4 });
    expect(result[0]).toBe('insights/facts/lives-in-shanghai.md#Rain lives in Shanghai');
    expect(result).toContain('profile/places/Shanghai.md#Shanghai');
  });

  it('finds a note by its alias', () => {
    expect(ids('魔都')[0]).toBe('profile/places/Shanghai.md#Shanghai');
    expect(ids('美美')[0]).toBe('profile/people/mei.md#Mei');
  });

  it('leaves superseded facts out unless asked for all', () => {
    expect(ids('Hangzhou lake').some((id) => id.includes('lives-in-hangzhou'))).toBe(false);
    expect(ids('Hangzhou lake', { all: true })).toContain(
      'insights/facts/lives-in-hangzhou.md#Rain lives in Hangzhou',
    );
  });

  it('never ranks a superseded fact above the fact that supersedes it', () => {
    const result = ids('Rain lived in Hangzhou, where does she live now', { all: true, k: 20 });
    const newer = result.indexOf('insights/facts/lives-in-shanghai.md#Rain lives in Shanghai');
    expect(newer).toBeGreaterThanOrEqual(0);
    expect(newer).toBeLessThan(result.indexOf('insights/facts/lives-in-hangzhou.md#Rain lives in Hangzhou'));
  });

  it("brings in a fact's source episode through its link, and says so", () => {
    const hits = vault.recall('new job', { now: NOW }).hits;
    expect(hits[0]?.id).toBe('insights/facts/lives-in-shanghai.md#Rain lives in Shanghai');
    const source = hits.find((h) => h.id === 'episodes/daily/2026-11-12.md#^e3');
    expect(source?.parts.text).toBe(0);
    expect(source?.parts.graph).toBeGreaterThan(0);
    expect(source?.reasons).toContain('linked from [[lives-in-shanghai]]');
    expect(source?.link).toBe('[[2026-11-12#^e3]]');
  });

  it('ranks the newer of two similar episode entries first', () => {
    const result = ids('hiking trip', { layers: ['episodes'] });
    expect(result.indexOf('episodes/daily/2026-11-28.md#^e2')).toBeLessThan(
      result.indexOf('episodes/daily/2026-10-01.md#^e1'),
    );
  });

  it('keeps to the layers asked for', () => {
    const hits = vault.recall('Rain', { now: NOW, layers: ['profile'] }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.layer === 'profile')).toBe(true);
  });

  it('narrows episode entries to a date range without filtering other layers', () => {
    const hits = vault.recall('hiking', { now: NOW, range: { from: '2026-11-28', to: '2026-11-28' } }).hits;
    const episodes = hits.filter((h) => h.layer === 'episodes');
    expect(episodes.map((h) => h.date)).toEqual(['2026-11-28', '2026-11-28']);
    expect(hits.some((h) => h.path === 'profile/people/mei.md')).toBe(true);
  });

  it('reads time words in the query as a range and reports it', () => {
    const result = vault.recall('上周末去哪了', { now: NOW });
    expect(result.range).toMatchObject({
      from: '2026-11-28',
      to: '2026-11-29',
      source: 'message',
      onlyTime: true,
    });
    // No word of 去哪了 is in either entry: what happened (the event) comes before what was said.
    expect(result.hits.map((h) => h.id)).toEqual([
      'episodes/daily/2026-11-28.md#^e1',
      'episodes/daily/2026-11-28.md#^e2',
    ]);
  });

  it('explains every hit with its score parts', () => {
    const [hit] = vault.recall('Shanghai', { now: NOW }).hits;
    expect(Object.keys(hit?.parts ?? {}).sort()).toEqual(['graph', 'importance', 'layer', 'recency', 'text']);
    expect(hit?.reasons[0]).toMatch(/^text match: /);
  });

  it('orders equal scores by id, whatever order the index took the notes in', async () => {
    const note = '# Tea\nRain drinks oolong tea.\n';
    const twins = { 'insights/b-tea.md': note, 'insights/c-tea.md': note, 'insights/a-tea.md': note };
    const read = await openVault({ path: await makeVault(twins), cache: false });
    // A second index that takes the same notes one at a time, last path first.
    const root = await makeVault();
    const added = await openVault({ path: root, cache: false });
    await mkdir(join(root, 'insights'));
    for (const path of Object.keys(twins).sort().reverse()) {
      await writeFile(join(root, path), note);
      await added.refreshPaths([path]);
    }
    const order = (v: Vault) => v.recall('oolong tea', { now: NOW }).hits.map((h) => h.path);
    expect(order(read)).toEqual(['insights/a-tea.md', 'insights/b-tea.md', 'insights/c-tea.md']);
    expect(order(added)).toEqual(order(read));
  });
});

describe('citations', () => {
  it('cite a heading with link characters in a form Obsidian resolves, and that resolves back', async () => {
    const vault = await openVault({
      path: await makeVault({
        'insights/plans.md': '# Plans\n\n## Move to [[Shanghai]] | the #big one: 2026\nPack the books.\n',
      }),
      cache: false,
    });
    const [hit] = vault.recall('pack books', { now: NOW }).hits;
    expect(hit?.link).toBe('[[plans#Move to Shanghai the big one 2026]]');
    const anchor = hit?.link.slice('[[plans#'.length, -2);
    const index = await indexOf(vault.root);
    expect(index.sectionByAnchor('insights/plans.md', anchor)?.section.text).toBe('Pack the books.');
  });
});

describe('speakers', () => {
  it('match a question that names who said it', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2023-05-08.md':
          '# 2023-05-08\n\n- 13:56 **Melanie:** I went to a support group yesterday. ^e1\n- 13:57 **Caroline:** I went to a support group too. ^e2\n',
      }),
      cache: false,
    });
    expect(vault.recall('When did Caroline go to the support group?', { now: NOW }).hits[0]?.anchor).toBe(
      '^e2',
    );
    expect(vault.recall('When did Melanie go to the support group?', { now: NOW }).hits[0]?.anchor).toBe(
      '^e1',
    );
  });
});

describe('date ranges read from a message', () => {
  it('rank entries outside the range lower instead of hiding them, and say so', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2026-11-28.md': '# 2026-11-28\n\n- 10:00 **Rain:** Baked bread with Mei. ^e1\n',
        'episodes/daily/2026-10-03.md':
          '# 2026-10-03\n\n- 10:00 **Rain:** Went hiking with Mei in the hills. ^e1\n',
      }),
      cache: false,
    });
    const result = vault.recall('did I go hiking with Mei last weekend?', { now: NOW });
    expect(result.range).toMatchObject({ from: '2026-11-28', to: '2026-11-29', mode: 'prefer' });
    const hiking = result.hits.find((h) => h.path === 'episodes/daily/2026-10-03.md');
    expect(hiking?.reasons).toContain('outside the date range (score × 0.25)');
    // An explicit range is a filter.
    const explicit = vault.recall('hiking with Mei', {
      now: NOW,
      range: { from: '2026-11-28', to: '2026-11-29' },
    });
    expect(explicit.hits.map((h) => h.path)).toEqual(['episodes/daily/2026-11-28.md']);
  });
});

describe('neighbouring entries', () => {
  it('bring in the reply to the turn that matched, and say why', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2023-05-08.md': [
          '# 2023-05-08\n',
          '- 13:56 **Melanie:** What did you paint last week? ^e1',
          '- 13:57 **Caroline:** A sunset over the lake, in oils. ^e2',
          '- 13:58 **Melanie:** Lovely. Are you going camping soon? ^e3',
          '',
        ].join('\n'),
      }),
      cache: false,
    });
    // Context, as compile asks for it: a neighbour alone is no hit of a plain recall (below).
    const hits = vault.recall('What did Caroline paint?', { now: NOW, context: true }).hits;
    const reply = hits.find((h) => h.anchor === '^e2');
    expect(reply).toBeDefined();
    expect(hits.find((h) => h.anchor === '^e1')?.reasons[0]).toMatch(/^text match: /);
    expect(reply?.reasons).toContain('next to ^e1');
    // Entries up to three away come in, each step at half the strength of the one before.
    const broughtByE1 = hits.filter((h) => h.reasons.includes('next to ^e1'));
    expect(broughtByE1.map((h) => h.anchor)).toEqual(['^e2', '^e3']);
    expect(broughtByE1[0]?.parts.graph).toBeGreaterThan(broughtByE1[1]?.parts.graph ?? 1);
    const plain = vault.recall('What did Caroline paint?', { now: NOW }).hits;
    expect(plain.map((h) => h.anchor)).toEqual(['^e1']);
  });
});

describe('a speaker named in the query', () => {
  it('ranks what that speaker said above what others said about them', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2023-05-08.md': [
          '# 2023-05-08\n',
          '- 13:56 **Melanie:** Caroline, your painting of the lake is lovely, Caroline! ^e1',
          '- 13:57 **Caroline:** Thanks! I painted the lake at sunset, in oils. ^e2',
          '- 13:58 **Melanie:** I should paint too. ^e3',
          '',
        ].join('\n'),
      }),
      cache: false,
    });
    const hits = vault.recall('What did Caroline paint?').hits;
    expect(hits[0]?.anchor).toBe('^e2');
    expect(hits.find((h) => h.anchor === '^e1')?.reasons.join('; ')).toMatch(
      /said by Melanie, not by caroline/,
    );
  });
});
