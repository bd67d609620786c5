import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema, defaultConfig, resolveConfig } from '../../src/core/config/config.js';
import { MemError } from '../../src/core/errors.js';
import { TEMPLATES_DIR } from '../../src/core/templates-dir.js';
import {
  DEFAULT_LAYOUT,
  dailyNotePath,
  dayOfPath,
  inLayout,
  layerOf,
  layoutOf,
} from '../../src/vault/layout.js';

// Daily-note formats people really use in Obsidian (core Daily notes and Periodic Notes settings,
// https://help.obsidian.md/Plugins/Daily+notes: "Date format" is a moment.js format; a `/` in it
// makes folders).
const FORMATS = [
  'YYYY-MM-DD',
  'YYYY/MM/YYYY-MM-DD',
  'YYYY/MM-MMMM/YYYY-MM-DD-dddd',
  'DD.MM.YYYY',
  'YYYY-MM-DD ddd',
  'MMMM D, YYYY',
  'YYYYMMDD',
  'gggg/[W]ww/YYYY-MM-DD',
  'YYYY年MM月DD日',
  '[Journal] YYYY-MM-DD',
];

const segment = fc
  .stringMatching(/^[A-Za-z0-9 _\-\u4e00-\u9fa5]{1,12}$/)
  .filter((s) => s.trim() === s && s !== '');
const folderName = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const day = fc
  .date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** A config with a layout of five distinct layer folders and a daily folder and format. */
const layoutConfig = fc
  .record({
    folders: fc.uniqueArray(folderName, { minLength: 5, maxLength: 5, selector: (f) => f.toLowerCase() }),
    daily: fc.oneof(fc.constant(''), folderName),
    format: fc.constantFrom(...FORMATS),
    locale: fc.constantFrom('en' as const, 'zh-cn' as const),
  })
  .map(({ folders, daily, format, locale }) =>
    resolveConfig({
      layout: {
        persona: folders[0],
        profile: folders[1],
        episodes: folders[2],
        insights: folders[3],
        archive: folders[4],
        daily: { folder: daily, format, locale },
      },
    }),
  );

describe('the vault layout', () => {
  it('is the layered tree by default: episodes/daily/YYYY-MM-DD.md', () => {
    expect(DEFAULT_LAYOUT.folders).toEqual({
      persona: 'persona',
      profile: 'profile',
      episodes: 'episodes',
      insights: 'insights',
      archive: 'archive',
    });
    expect(dailyNotePath('2026-12-02')).toBe('episodes/daily/2026-12-02.md');
    expect(dayOfPath('episodes/daily/2026-12-02.md')).toBe('2026-12-02');
    expect(dayOfPath('episodes/daily/2026-02-30.md')).toBeUndefined();
    expect(layerOf('episodes/weekly/2026-W48.md')).toBe('episodes');
    expect(layerOf('persona.md')).toBe('other');
    expect(layerOf('People/Mei.md')).toBe('other');
  });

  it('files every day of every layout under its own daily note, read back as that day, in the episodes layer', () => {
    fc.assert(
      fc.property(layoutConfig, day, (config, date) => {
        const layout = layoutOf(config);
        const path = dailyNotePath(date, layout);
        expect(path.endsWith('.md')).toBe(true);
        expect(path.startsWith(layout.daily.folder === '' ? '' : `${layout.daily.folder}/`)).toBe(true);
        expect(dayOfPath(path, layout)).toBe(date);
        expect(layerOf(path, layout)).toBe('episodes');
      }),
      { numRuns: 400 },
    );
  });

  it('puts a note in the deepest layer folder that holds it, and a person\u2019s own notes in other', () => {
    fc.assert(
      fc.property(layoutConfig, segment, (config, name) => {
        const layout = layoutOf(config);
        for (const layer of ['persona', 'profile', 'insights', 'archive'] as const) {
          const path = `${layout.folders[layer]}/${name}.md`;
          if (dayOfPath(path, layout) !== undefined) continue; // a note named like a day in the daily folder
          const deeper = Object.values(layout.folders).some(
            (f) => f.length > layout.folders[layer].length && path.startsWith(`${f}/`),
          );
          if (!deeper) expect(layerOf(path, layout)).toBe(layer);
        }
        const outside = `zz-${name}/${name}.md`;
        const held = Object.values(layout.folders).some((f) => outside.startsWith(`${f}/`));
        if (!held && dayOfPath(outside, layout) === undefined) expect(layerOf(outside, layout)).toBe('other');
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a layout that would misfile notes, naming the key', () => {
    const refused = (layout: object) => {
      try {
        layoutOf(resolveConfig({ layout }));
      } catch (error) {
        expect(error).toBeInstanceOf(MemError);
        return (error as MemError).message;
      }
      throw new Error(`accepted ${JSON.stringify(layout)}`);
    };
    expect(refused({ daily: { format: 'MM-DD' } })).toMatch(/layout\.daily\.format/);
    expect(refused({ persona: 'Notes', profile: 'notes' })).toMatch(/layout\.profile and layout\.persona/);
    for (const bad of ['../outside', '/abs/../x', 'a//b', '.obsidian/x', '.mem', 'a\\b', 'a:b', '']) {
      expect(() => resolveConfig({ layout: { persona: bad } }), bad).toThrow(/layout\.persona/);
    }
    expect(() => resolveConfig({ layout: { daily: { folder: '../Daily' } } })).toThrow(
      /layout\.daily\.folder/,
    );
    // The vault root is a daily folder Obsidian allows (its default), never a layer's.
    expect(resolveConfig({ layout: { daily: { folder: '' } } }).layout.daily.folder).toBe('');
    expect(resolveConfig({ layout: { persona: '/AI/persona/' } }).layout.persona).toBe('AI/persona');
  });

  it('keeps one layout object per config, whose key changes with any setting', () => {
    const config = defaultConfig();
    expect(layoutOf(config)).toBe(layoutOf(config));
    const other = resolveConfig({ layout: { daily: { folder: 'Daily' } } });
    expect(layoutOf(other).key).not.toBe(layoutOf(config).key);
    expect(Object.keys(configSchema.shape.layout.unwrap().shape)).toEqual([
      'persona',
      'profile',
      'episodes',
      'insights',
      'archive',
      'daily',
    ]);
  });

  it("tells a model this vault's folders: every folder the reflect prompt names is the layout's", () => {
    const prompt = readFileSync(join(TEMPLATES_DIR, 'prompts', 'reflect.md'), 'utf8');
    expect(inLayout(prompt)).toBe(prompt);
    const layout = layoutOf(
      resolveConfig({
        layout: {
          persona: 'AI/persona',
          profile: 'AI/profile',
          episodes: 'AI/episodes',
          insights: 'AI/insights',
          archive: 'AI/archive',
          daily: { folder: 'Journal', format: 'DD.MM.YYYY' },
        },
      }),
    );
    const adopted = inLayout(prompt, layout);
    expect(adopted).toContain('`AI/profile/user.md` is the core profile');
    expect(adopted).toContain('`Journal/DD.MM.YYYY.md`: what happened');
    expect(adopted).toContain('`mark_reflected` for `Journal/02.03.2026.md`');
    expect(adopted).toContain('Entries: `[[02.03.2026#^e4]]`');
    expect(adopted).not.toMatch(/\[\[\d{4}-\d{2}-\d{2}[#|\]]/);
    // Every path the prompt names lies in the layer it names under the new layout.
    for (const [, path] of adopted.matchAll(/`((?:AI|Journal)\/[^`\s]*\.md)`/g)) {
      if (path === 'Journal/DD.MM.YYYY.md') continue; // the pattern itself, not a note
      expect(['persona', 'profile', 'insights', 'episodes', 'archive']).toContain(layerOf(path!, layout));
    }
    expect(adopted).not.toMatch(/(?<![\w/.-])(persona|profile|insights|episodes)\//);
  });
});
