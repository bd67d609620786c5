// Real `.obsidian/` folders in temp vaults, each file in the shape Obsidian or the plugin writes:
// - daily-notes.json: the core Daily notes plugin's options `{ folder, format, template, autorun }`
//   (as obsidian-daily-notes-interface reads them: getDailyNotesPlugin(app).options).
// - core-plugins.json: an array of enabled ids (Obsidian before 1.4) or an object id → boolean (since).
// - community-plugins.json: an array of enabled community plugin ids.
// - plugins/periodic-notes/data.json: Periodic Notes 0.0.x `{ daily: { enabled, folder, format, template } }`
//   (liamcain/obsidian-periodic-notes src/settings.ts) and 1.x `{ activeCalendarSet, calendarSets: [{ id,
//   ctime, day: { enabled, openAtStartup, format, templatePath, folder } }], localeOverride, weekStart }`
//   (src/types.ts, src/settings/index.ts).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import { readDailyNoteSettings } from '../../src/vault/links/obsidian-settings.js';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A vault with `.obsidian/` and `files` (path → text, or an object written as JSON). */
async function obsidianVault(files: Record<string, string | object> = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'memvault-obsidian-'));
  made.push(root);
  await mkdir(join(root, '.obsidian'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(
      join(root, path),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
  }
  return root;
}

async function refusal(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemError);
  return error as MemError;
}

const CORE_ARRAY = ['file-explorer', 'global-search', 'daily-notes', 'templates'];
const PERIODIC_0 = {
  showGettingStartedBanner: false,
  hasMigratedDailyNoteSettings: true,
  hasMigratedWeeklyNoteSettings: false,
  daily: {
    format: 'YYYY/MM-MMMM/YYYY-MM-DD-dddd',
    template: 'Templates/Daily',
    folder: 'Journal',
    enabled: true,
  },
  weekly: { format: 'gggg-[W]ww', template: '', folder: '', enabled: false },
  monthly: { format: '', template: '', folder: '', enabled: false },
};
const periodic1 = (day: object, extra: object = {}) => ({
  showGettingStartedBanner: false,
  hasMigratedDailyNoteSettings: true,
  hasMigratedWeeklyNoteSettings: true,
  installedVersion: '1.0.0-beta3',
  activeCalendarSet: 'Work',
  calendarSets: [
    {
      id: 'Default',
      ctime: '2022-04-10T16:11:00+08:00',
      day: { enabled: true, format: 'YYYY-MM-DD', folder: 'Home', templatePath: '' },
    },
    { id: 'Work', ctime: '2022-04-11T09:00:00+08:00', day },
  ],
  enableTimelineComplication: true,
  localeOverride: 'system-default',
  weekStart: 'locale',
  ...extra,
});

describe('readDailyNoteSettings', () => {
  it('is undefined for a folder that is no Obsidian vault', async () => {
    const root = await mkdtemp(join(tmpdir(), 'memvault-plain-'));
    made.push(root);
    expect(await readDailyNoteSettings(root)).toBeUndefined();
  });

  it("gives Obsidian's defaults for a vault that never changed them", async () => {
    expect(await readDailyNoteSettings(await obsidianVault())).toEqual({
      folder: '',
      format: 'YYYY-MM-DD',
      source: 'daily-notes',
      enabled: true,
      autorun: false,
      locale: 'en',
      notes: [],
    });
  });

  it('reads the core plugin: folder and template normalised, autorun', async () => {
    const root = await obsidianVault({
      '.obsidian/daily-notes.json': {
        folder: '/Journal/Daily/',
        format: 'YYYY/MM/YYYY-MM-DD',
        template: 'Templates/Daily',
        autorun: true,
      },
      '.obsidian/core-plugins.json': CORE_ARRAY,
      'Templates/Daily.md': '# {{date}}\n',
    });
    expect(await readDailyNoteSettings(root)).toEqual({
      folder: 'Journal/Daily',
      format: 'YYYY/MM/YYYY-MM-DD',
      template: 'Templates/Daily.md',
      source: 'daily-notes',
      enabled: true,
      autorun: true,
      locale: 'en',
      notes: [],
    });
  });

  it('says when the template does not exist, and keeps an explicit .md', async () => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': { template: 'T/Day.md' } });
    const settings = await readDailyNoteSettings(root);
    expect(settings?.template).toBe('T/Day.md');
    expect(settings?.notes.join('\n')).toMatch(/template T\/Day\.md does not exist/);
  });

  it.each([
    ['an array without it (older Obsidian)', ['file-explorer', 'templates']],
    ['an object with it false (newer Obsidian)', { 'file-explorer': true, 'daily-notes': false }],
  ])('says Daily notes is off when core-plugins.json is %s', async (_, core) => {
    const root = await obsidianVault({
      '.obsidian/core-plugins.json': core,
      '.obsidian/daily-notes.json': { folder: 'Days', format: 'DD-MM-YYYY' },
    });
    const settings = await readDailyNoteSettings(root);
    expect(settings).toMatchObject({
      folder: 'Days',
      format: 'DD-MM-YYYY',
      source: 'daily-notes',
      enabled: false,
    });
    expect(settings?.notes.join('\n')).toMatch(/neither Daily notes nor Periodic Notes is enabled/);
  });

  it('reads Periodic Notes 0.0.x, which wins over the core plugin when enabled', async () => {
    const root = await obsidianVault({
      '.obsidian/core-plugins.json': { 'daily-notes': true },
      '.obsidian/daily-notes.json': { folder: 'Core', format: 'YYYY-MM-DD' },
      '.obsidian/community-plugins.json': ['calendar', 'periodic-notes'],
      '.obsidian/plugins/periodic-notes/data.json': PERIODIC_0,
    });
    expect(await readDailyNoteSettings(root, { locale: 'zh-cn' })).toEqual({
      folder: 'Journal',
      format: 'YYYY/MM-MMMM/YYYY-MM-DD-dddd',
      template: 'Templates/Daily.md',
      source: 'periodic-notes',
      enabled: true,
      autorun: false,
      locale: 'zh-cn',
      notes: [
        '.obsidian/plugins/periodic-notes/data.json: template Templates/Daily.md does not exist; notes start empty',
      ],
    });
  });

  it('falls back to the core plugin when Periodic Notes is off, or its daily notes are', async () => {
    const core = { '.obsidian/daily-notes.json': { folder: 'Core' } };
    const notListed = await obsidianVault({
      ...core,
      '.obsidian/plugins/periodic-notes/data.json': PERIODIC_0,
    });
    expect((await readDailyNoteSettings(notListed))?.folder).toBe('Core');
    const dailyOff = await obsidianVault({
      ...core,
      '.obsidian/community-plugins.json': ['periodic-notes'],
      '.obsidian/plugins/periodic-notes/data.json': {
        ...PERIODIC_0,
        daily: { ...PERIODIC_0.daily, enabled: false },
      },
    });
    expect(await readDailyNoteSettings(dailyOff)).toMatchObject({ folder: 'Core', source: 'daily-notes' });
  });

  it("reads Periodic Notes 1.x: the active calendar set's day, its locale override", async () => {
    const root = await obsidianVault({
      '.obsidian/community-plugins.json': ['periodic-notes'],
      '.obsidian/plugins/periodic-notes/data.json': periodic1(
        {
          enabled: true,
          openAtStartup: true,
          format: 'YYYY年MM月DD日 dddd',
          folder: 'Work/Daily',
          templatePath: 'Templates/Work.md',
        },
        { localeOverride: 'zh-cn', weekStart: 'monday' },
      ),
      'Templates/Work.md': '',
    });
    const settings = await readDailyNoteSettings(root, { locale: 'en' });
    expect(settings).toMatchObject({
      folder: 'Work/Daily',
      format: 'YYYY年MM月DD日 dddd',
      template: 'Templates/Work.md',
      source: 'periodic-notes',
      enabled: true,
      autorun: true,
      locale: 'zh-cn',
    });
    expect(settings?.notes.join('\n')).toMatch(/weekStart "monday" is not followed/);
  });

  it('gives the default format for an empty one (Periodic Notes writes "")', async () => {
    const root = await obsidianVault({
      '.obsidian/community-plugins.json': ['periodic-notes'],
      '.obsidian/plugins/periodic-notes/data.json': periodic1({
        enabled: true,
        format: '',
        folder: '',
        templatePath: '',
      }),
    });
    expect(await readDailyNoteSettings(root)).toMatchObject({
      folder: '',
      format: 'YYYY-MM-DD',
      source: 'periodic-notes',
    });
  });

  it('reports a format that cannot name one day', async () => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': { format: 'YYYY-[W]WW' } });
    expect((await readDailyNoteSettings(root))?.formatError).toMatch(
      /^\.obsidian\/daily-notes\.json: .*GGGG/,
    );
  });

  it.each(['.obsidian/daily-notes.json', '.obsidian/core-plugins.json', '.obsidian/community-plugins.json'])(
    'refuses malformed JSON in %s, naming the file',
    async (file) => {
      const root = await obsidianVault({ [file]: '{"folder": "Daily",' });
      const error = await refusal(readDailyNoteSettings(root));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(file);
    },
  );

  it('refuses malformed Periodic Notes data when the plugin is enabled', async () => {
    const root = await obsidianVault({
      '.obsidian/community-plugins.json': ['periodic-notes'],
      '.obsidian/plugins/periodic-notes/data.json': '{ daily: }',
    });
    const error = await refusal(readDailyNoteSettings(root));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toContain('.obsidian/plugins/periodic-notes/data.json');
  });

  it.each([
    [{ format: 5 }, /format must be a string/],
    [{ folder: ['Daily'] }, /folder must be a string/],
    [[1, 2], /must be an object/],
  ])('refuses a field of the wrong type: %j', async (content, message) => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': content });
    const error = await refusal(readDailyNoteSettings(root));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
  });

  it.each(['../x', 'Daily/../../x', 'a/../../..'])(
    'refuses a folder outside the vault: %s',
    async (folder) => {
      const root = await obsidianVault({ '.obsidian/daily-notes.json': { folder } });
      const error = await refusal(readDailyNoteSettings(root));
      expect(error.code).toBe('PATH_OUTSIDE_VAULT');
      expect(error.message).toContain('.obsidian/daily-notes.json: folder');
    },
  );

  it('keeps the settings but drops a template mem cannot read, saying why', async () => {
    const root = await obsidianVault({
      '.obsidian/daily-notes.json': { folder: 'Days', template: '.hidden/Daily' },
    });
    const settings = await readDailyNoteSettings(root);
    expect(settings).toMatchObject({ folder: 'Days' });
    expect(settings?.template).toBeUndefined();
    expect(settings?.notes.join('\n')).toMatch(/daily-notes\.json: template .*\.hidden/);
  });

  it('uses the core plugin when Periodic Notes is enabled but has never saved its settings', async () => {
    const root = await obsidianVault({
      '.obsidian/community-plugins.json': ['periodic-notes'],
      '.obsidian/daily-notes.json': { folder: 'Core', format: 'YYYY/MM/YYYY-MM-DD' },
    });
    expect(await readDailyNoteSettings(root)).toMatchObject({
      folder: 'Core',
      source: 'daily-notes',
      enabled: true,
    });
  });

  it('reads a config folder Obsidian was told to use instead of .obsidian, and refuses one that is no dot folder', async () => {
    const root = await obsidianVault({ '.obsidian-mobile/daily-notes.json': { folder: 'Phone' } });
    expect(await readDailyNoteSettings(root, { configDir: '.obsidian-mobile' })).toMatchObject({
      folder: 'Phone',
    });
    for (const configDir of ['..', '../.obsidian', 'obsidian', '.a/b'])
      expect((await refusal(readDailyNoteSettings(root, { configDir }))).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses a template outside the vault', async () => {
    const root = await obsidianVault({ '.obsidian/daily-notes.json': { template: '../secrets/Daily' } });
    expect((await refusal(readDailyNoteSettings(root))).code).toBe('PATH_OUTSIDE_VAULT');
  });

  it('strips any leading and trailing slashes from a folder; "/" is the root', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(3),
        fc.nat(3),
        fc.constantFrom('', 'Daily', 'Journal/2026', '日记/每日'),
        async (before, after, name) => {
          const folder = '/'.repeat(before) + name + '/'.repeat(after);
          const root = await obsidianVault({ '.obsidian/daily-notes.json': { folder } });
          expect((await readDailyNoteSettings(root))?.folder).toBe(name);
        },
      ),
      { numRuns: 25 },
    );
  });
});
