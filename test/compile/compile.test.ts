import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_BUDGET } from '../../src/compile/compile.js';
import { countTokens } from '../../src/compile/count-tokens.js';
import { MemError, openVault } from '../../src/index.js';
import { cleanupVaults, copyExampleVault, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-11-30T10:00:00+08:00');

const SMALL: Record<string, string> = {
  'persona/identity.md':
    '---\npinned: true\norder: 1\n---\n# 小满\n我是小满，一个温暖、细心的陪伴者。I listen first and answer briefly.\n',
  'persona/voice.md': '---\npinned: true\norder: 2\n---\n# Voice\nShort sentences. 中文和英文混着说。\n',
  'profile/user.md': '---\ntitle: Rain\npinned: true\n---\n# Rain\n## Home\nLives in [[Shanghai]].\n',
  'profile/places/Shanghai.md': '# Shanghai\nThe city Rain moved to in November.\n',
  'episodes/daily/2026-11-28.md':
    '---\ndate: 2026-11-28\n---\n# 2026-11-28\n\n- 10:00 (event) Rain went hiking with Mei. ^e1\n- 18:00 **Rain:** 爬山好累但是很开心。 ^e2\n',
  'episodes/daily/2026-11-29.md':
    '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** Cooked tomato eggs for the first time. ^e1\n',
};

describe('compile', () => {
  it('puts persona, the user, relevant memories and recent entries in that order', async () => {
    const vault = await openVault({ path: await makeVault(SMALL), cache: false });
    const result = vault.compile({ message: 'how was the hiking?', budget: 2000, now: NOW });
    expect(result.sections.map((s) => s.name)).toEqual(['persona', 'user', 'relevant', 'recent']);
    const headings = result.markdown.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual(['## Persona', '## About the user', '## Relevant memories', '## Recent']);
    expect(result.sections[0]?.items.map((i) => i.path)).toEqual(['persona/identity.md', 'persona/voice.md']);
    expect(result.sections[2]?.items[0]?.anchor).toBe('^e1');
    // Each entry: its block id and speaker, then its words as a quote.
    expect(result.markdown).toContain(
      '[[2026-11-28]]\n- ^e1\n> (event) Rain went hiking with Mei.\n- ^e2 Rain:\n> 爬山好累但是很开心。\n',
    );
    expect(result.used).toBe(countTokens(result.markdown));
  });

  it('never lists an item twice, even when recall and recency both find it', async () => {
    const vault = await openVault({ path: await makeVault(SMALL), cache: false });
    const result = vault.compile({ message: 'tomato eggs', budget: 2000, now: NOW });
    const keys = result.sections.flatMap((s) => s.items.map((i) => `${i.path}#${i.anchor}`));
    expect(new Set(keys).size).toBe(keys.length);
    expect(result.sections[2]?.items.map((i) => i.anchor)).toContain('^e1');
  });

  it('lets budget a section leaves unused flow to the next', async () => {
    const files = { ...SMALL };
    delete files['persona/identity.md'];
    delete files['persona/voice.md'];
    const vault = await openVault({ path: await makeVault(files), cache: false });
    const result = vault.compile({ message: 'hiking', budget: 1000, now: NOW });
    expect(result.sections[0]?.used).toBe(0);
    // Persona's 20% and whatever the user section left both reach the relevant memories.
    expect(result.sections[2]?.budget).toBeGreaterThan(450);
  });

  it('keeps the persona and user prefix byte-identical across turns', async () => {
    const vault = await openVault({ path: await makeVault(SMALL), cache: false });
    const prefix = (message: string) => {
      const md = vault.compile({ message, budget: 1500, now: NOW }).markdown;
      return md.slice(0, md.indexOf('## Relevant memories'));
    };
    expect(prefix('hiking')).toBe(prefix('what did I cook?'));
    expect(prefix('hiking').length).toBeGreaterThan(50);
  });

  it('gives the same document, byte for byte, for the same turn while the vault is unchanged', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const turn = { message: '上周末去哪了', history: ['早'], budget: 1500, now: NOW };
    const first = vault.compile(turn).markdown;
    vault.compile({ message: 'something else entirely', budget: 800, now: NOW });
    expect(vault.compile(turn).markdown).toBe(first);
  });

  it('cites every item with a link that resolves to a real note and anchor', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const result = vault.compile({ message: '阿哲 and the bookshelf from IKEA', budget: 3000, now: NOW });
    const items = result.sections.flatMap((s) => s.items);
    expect(items.length).toBeGreaterThan(5);
    for (const item of items) {
      const note = vault.note(item.path);
      if (item.anchor) expect(note.sections.map((s) => s.anchor)).toContain(item.anchor);
    }
    const cites = [...result.markdown.matchAll(/\[\[(\d{4}-\d{2}-\d{2})#\^([\w-]+)\]\]/g)];
    expect(cites.length).toBeGreaterThan(0);
    for (const [, day, block] of cites) {
      expect(vault.note(day as string).blocks.map((b) => b.id)).toContain(block);
    }
  });

  it('writes a day link once above its entries, each entry citable as that link plus its block id', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const result = vault.compile({ message: '阿哲 and the bookshelf from IKEA', budget: 3000, now: NOW });
    let day: string | undefined;
    let entries = 0;
    for (const line of result.markdown.split('\n')) {
      const heading = /^\[\[([^\]#|]+)\]\]/.exec(line);
      if (heading) day = heading[1];
      else if (line.startsWith('## ')) day = undefined;
      const entry = /^- (\^[\w-]+)(?: |$)/.exec(line);
      if (!entry) continue;
      entries++;
      expect(day).toBeDefined();
      expect(vault.note(day as string).sections.map((s) => s.anchor)).toContain(entry[1]);
    }
    expect(entries).toBeGreaterThan(5);
    // Within a section each day's link is written once.
    for (const section of result.markdown.split(/^## /m)) {
      const days = section.split('\n').filter((l) => /^\[\[\d{4}-\d{2}-\d{2}\]\]$/.test(l));
      expect(days.length).toBe(new Set(days).size);
    }
  });

  it('answers a question about the new city with the current city, not the superseded one', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const result = vault.compile({ message: '我现在住在哪个城市？', budget: 2000, now: NOW });
    const paths = result.sections.flatMap((s) => s.items.map((i) => i.path));
    expect(paths).not.toContain('insights/facts/lives-in-hangzhou.md');
    expect(result.markdown).toMatch(/Shanghai|上海/);
    expect(result.used).toBeLessThanOrEqual(2000);
  });

  it('cuts Chinese text at a sentence boundary and marks the cut', async () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `这是第${i + 1}句关于小满性格的描述，她很温柔也很认真。`,
    ).join('');
    const vault = await openVault({
      path: await makeVault({ 'persona/identity.md': `---\npinned: true\n---\n# 小满\n${long}\n` }),
      cache: false,
    });
    const result = vault.compile({ message: 'hi', budget: 400, now: NOW });
    const item = result.sections[0]?.items[0];
    expect(item?.cut).toBe(true);
    expect(item?.text.endsWith('。 …')).toBe(true);
    expect(result.markdown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(result.used).toBeLessThanOrEqual(400);
  });

  it('gives a small valid document for an empty vault, an empty message or the smallest budget', async () => {
    const empty = await openVault({ path: await makeVault({}), cache: false });
    expect(empty.compile({ message: 'hello', budget: 500, now: NOW })).toMatchObject({
      markdown: '',
      used: 0,
    });
    const vault = await openVault({ path: await makeVault(SMALL), cache: false });
    expect(vault.compile({ message: '', budget: 500, now: NOW }).used).toBeLessThanOrEqual(500);
    const tiny = vault.compile({ message: 'hiking', budget: MIN_BUDGET, now: NOW });
    expect(tiny.used).toBeLessThanOrEqual(MIN_BUDGET);
    expect(tiny.markdown).not.toBe('');
  });

  it('refuses a budget too small to hold anything, naming the minimum', async () => {
    const vault = await openVault({ path: await makeVault(SMALL), cache: false });
    for (const budget of [0, 1, 10, MIN_BUDGET - 1, Number.NaN, -5]) {
      let error: unknown;
      try {
        vault.compile({ message: 'hiking', budget, now: NOW });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MemError);
      expect((error as MemError).code).toBe('INVALID_ARGUMENT');
      expect((error as MemError).message).toContain(`the minimum is ${MIN_BUDGET}`);
    }
  });

  it('mem compile --budget 10 says so on stderr and exits 2 (a refused argument), with nothing on stdout', async () => {
    const root = await makeVault(SMALL);
    const run = await mem(['--vault', root, '--no-server', 'compile', 'hiking', '--budget', '10']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `mem: compile: a budget of 10 tokens is too small to hold anything; the minimum is ${MIN_BUDGET}\n`,
    });
  });

  it('is deterministic: the same vault, message, budget and now give the same bytes', async () => {
    const vault = await openVault({ path: await copyExampleVault(), cache: false });
    const a = vault.compile({ message: 'sleep and tea', budget: 1200, now: NOW });
    const b = vault.compile({ message: 'sleep and tea', budget: 1200, now: NOW });
    expect(a.markdown).toBe(b.markdown);
  });

  it('never exceeds its budget, whatever the vault, message and budget', async () => {
    const word = fc.constantFrom(
      'Rain',
      'hiking',
      '上海',
      '搬家',
      'coffee',
      '汤圆',
      '🐱',
      'the',
      'sleep',
      '工作',
      'Mei',
      '。',
      '.',
      '\n',
    );
    const text = fc.array(word, { minLength: 1, maxLength: 120 }).map((w) => w.join(' '));
    const note = fc.record({
      layer: fc.constantFrom('persona', 'profile', 'insights', 'episodes/daily', 'other'),
      body: text,
      pinned: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(note, { maxLength: 8 }),
        text,
        fc.oneof(fc.integer({ min: MIN_BUDGET, max: 120 }), fc.integer({ min: 121, max: 3000 })),
        async (notes, message, budget) => {
          const files: Record<string, string> = {};
          notes.forEach((n, i) => {
            const name =
              n.layer === 'episodes/daily' ? `2026-11-${String(10 + i).padStart(2, '0')}` : `n${i}`;
            const body =
              n.layer === 'episodes/daily'
                ? n.body
                    .split('\n')
                    .map((line, j) => `- 10:${String(j % 60).padStart(2, '0')} **Rain:** ${line} ^e${j + 1}`)
                    .join('\n')
                : n.body;
            files[`${n.layer}/${name}.md`] = `---\npinned: ${n.pinned}\n---\n# ${name}\n${body}\n`;
          });
          const vault = await openVault({ path: await makeVault(files), cache: false });
          const result = vault.compile({ message, budget, now: NOW });
          expect(countTokens(result.markdown)).toBeLessThanOrEqual(budget);
          expect(result.used).toBe(countTokens(result.markdown));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('compile leaves out what is not for the model', () => {
  it('drops Obsidian %%comments%% and notes with nothing to say', async () => {
    const vault = await openVault({
      path: await makeVault({
        'persona/identity.md': '---\npinned: true\n---\n# Me\n%%edit me%%\n\nYou are kind. %%inline note%%\n',
        'profile/user.md': '---\npinned: true\n---\n# User\n\n## About\n\n## Work\n',
      }),
      cache: false,
    });
    const result = vault.compile({ message: 'hi', budget: 500, now: NOW });
    expect(result.markdown).toBe('## Persona\n### Me [[identity]]\nYou are kind.\n');
    expect(result.sections[1]?.items).toEqual([]);
  });
});

describe('rollups', () => {
  it('let the newest weekly summary stand in for its days in the recent section', async () => {
    const day = (date: string, text: string) =>
      `---\ndate: ${date}\n---\n# ${date}\n\n- 10:00 **Rain:** ${text} ^e1\n`;
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2026-11-20.md': day('2026-11-20', 'Packed the last boxes.'),
        'episodes/daily/2026-11-27.md': day('2026-11-27', 'First bouldering session.'),
        'episodes/daily/2026-11-29.md': day('2026-11-29', 'Called my sister.'),
        'episodes/weekly/2026-W47.md':
          '---\ntype: rollup\nperiod: 2026-W47\ntitle: "Week 47: the move"\n---\n# 2026-W47\nRain moved to Shanghai.\n',
      }),
      cache: false,
    });
    const recent = vault.compile({ message: 'hi', budget: 2000, now: NOW }).sections[3];
    expect(recent?.items.map((i) => [i.path, i.reason])).toEqual([
      ['episodes/weekly/2026-W47.md', 'rollup of 2026-11-16 to 2026-11-22'],
      ['episodes/daily/2026-11-27.md', 'recent'],
      ['episodes/daily/2026-11-29.md', 'recent'],
    ]);
    expect(recent?.items[0]?.text).toBe('Rain moved to Shanghai.');
  });
});

describe('rollups and duplicates', () => {
  const day = (date: string, text: string) =>
    `---\ndate: ${date}\n---\n# ${date}\n\n- 10:00 **Rain:** ${text} ^e1\n`;

  it('never shows a rollup twice when recall also finds it', async () => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2026-11-27.md': day('2026-11-27', 'First bouldering session.'),
        'episodes/weekly/2026-W47.md':
          '---\ntype: rollup\nperiod: 2026-W47\ntitle: "Week 47"\n---\n# 2026-W47\nA zeppelin flew over Shanghai.\n',
      }),
      cache: false,
    });
    const result = vault.compile({ message: 'the zeppelin', budget: 2000, now: NOW });
    expect(result.markdown.split('A zeppelin flew over Shanghai.').length - 1).toBe(1);
    expect(result.sections[2]?.items.map((i) => i.path)).toEqual(['episodes/weekly/2026-W47.md']);
    expect(result.sections[3]?.items.map((i) => i.path)).toEqual(['episodes/daily/2026-11-27.md']);
  });

  // 17:00 UTC on the 29th is 01:00 on the 30th in Shanghai: written on the 30th, so it stands in
  // for the 29th and the 30th stays raw whatever offset `created` has.
  it.each([
    ['lets a rollup stand in only for the days before it was written', '2026-11-30T09:00:00+08:00'],
    [
      'reads the day a rollup was written in the vault zone, whatever offset `created` has',
      '2026-11-29T17:00:00Z',
    ],
  ])('%s', async (_name, created) => {
    const vault = await openVault({
      path: await makeVault({
        'episodes/daily/2026-11-29.md': day('2026-11-29', 'Packed for the trip.'),
        'episodes/daily/2026-11-30.md': day('2026-11-30', 'My sister arrives on Dec 3.'),
        'episodes/monthly/2026-11.md': `---\ntype: rollup\nperiod: 2026-11\ntitle: "November"\ncreated: ${created}\n---\n# 2026-11\nThe move.\n`,
      }),
      cache: false,
    });
    const recent = vault.compile({ message: 'hi', budget: 2000, now: new Date('2026-12-01T10:00:00+08:00') })
      .sections[3];
    expect(recent?.items.map((i) => i.path)).toEqual([
      'episodes/monthly/2026-11.md',
      'episodes/daily/2026-11-30.md',
    ]);
  });
});
