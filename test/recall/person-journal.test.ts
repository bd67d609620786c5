import { afterAll, describe, expect, it } from 'vitest';
import { openVault, type Vault, vaultStatus } from '../../src/index.js';
import { type HttpServer, serveHttp } from '../../src/serve/http.js';
import { singleVault } from '../../src/serve/pool/vault-source.js';
import { addDays } from '../../src/time/calendar-day.js';
import { dailyNotePath, dayOfPath, layoutOf } from '../../src/vault/layout.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// An adopted Obsidian vault: the person's own daily notes, in their folder and date format, are
// memory by date. Time words, compile's recent section, the weekly rollup, `mem status` and the web
// page's day list read their sections and items (with their times), as well as mem's entries.

afterAll(cleanupVaults);

/** The vault's zone is nine hours ahead of UTC: at 08:00 there, UTC's day is still the day before. */
const ZONE = 'Asia/Tokyo';
const at = (day: string, time = '08:00') => new Date(`${day}T${time}:00+09:00`);

/** Daily note settings as Obsidian users have them: folders, dotted and slashed formats, names. */
const DAILY = [
  { folder: 'Daily', format: 'YYYY-MM-DD' },
  { folder: 'Journal', format: 'DD.MM.YYYY' },
  { folder: 'Journal', format: 'YYYY/MM/DD' },
  { folder: 'Notes/Daily notes', format: 'YYYY/MMMM/D MMMM YYYY, dddd' },
  { folder: '', format: 'YYYY-MM-DD' },
];

interface Item {
  time?: string;
  speaker?: string;
  text: string;
}

/** Journal shapes, one a day: what the note holds, the person's items, and mem's entries in it. */
const SHAPES: Array<{ name: string; note: string; person: Item[]; mem?: Item[] }> = [
  {
    name: 'headings with paragraphs',
    note: '# Monday\n\n## Morning\nWent running by the river, saw a heron.\n\n## Evening\nRead two chapters of Dune.\n',
    person: [{ text: 'Went running by the river, saw a heron.' }, { text: 'Read two chapters of Dune.' }],
  },
  {
    name: 'a bullet list',
    note: '- walked the dog in the rain\n- bought sourdough at the market\n  with seeds on top\n',
    person: [
      { text: 'walked the dog in the rain' },
      { text: 'bought sourdough at the market\nwith seeds on top' },
    ],
  },
  {
    name: 'tasks',
    note: '## Tasks\n- [x] filed the tax return\n- [ ] repaint the fence\n- [ ] \n',
    person: [{ text: '[x] filed the tax return' }, { text: '[ ] repaint the fence' }],
  },
  {
    name: 'timed items',
    note: '## Log\n- 09:30 dentist appointment\n- 18:00 climbing with **Ana:** great wall\n\n07:15 woke before the alarm\n',
    person: [
      { time: '07:15', text: 'woke before the alarm' },
      { time: '09:30', text: 'dentist appointment' },
      { time: '18:00', text: 'climbing with **Ana:** great wall' },
    ],
  },
  {
    name: "the person's sections and mem's entries",
    note: '# Friday\n\n## Notes\nFixed the bike chain.\n\n## Memory\n- 10:00 **Rain:** I switched to green tea ^e1\n',
    person: [{ text: 'Fixed the bike chain.' }],
    mem: [{ time: '10:00', speaker: 'Rain', text: 'I switched to green tea' }],
  },
];

/** Monday 2026-11-30 to Sunday 2026-12-06 (2026-W49): one shape a day from Monday on. */
const WEEK = { from: '2026-11-30', to: '2026-12-06', period: '2026-W49' };
const dayOfShape = (i: number) => addDays(WEEK.from, i);
/** Tuesday after the week, early morning in the vault's zone (still Monday in UTC) */
const AFTER = at('2026-12-08');

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

async function adopted(daily: (typeof DAILY)[number]): Promise<Vault> {
  const config = {
    timezone: ZONE,
    layout: {
      persona: 'AI/persona',
      profile: 'AI/profile',
      episodes: 'AI/episodes',
      insights: 'AI/insights',
      archive: 'AI/archive',
      daily: { ...daily, heading: 'Memory' },
    },
  };
  const layout = layoutOf({
    ...config,
    layout: { ...config.layout, daily: { ...daily, locale: 'en' } },
  } as never);
  const files: Record<string, string> = { 'AI/profile/user.md': '# User\nRain.\n' };
  SHAPES.forEach((shape, i) => {
    const path = dailyNotePath(dayOfShape(i), layout);
    expect(dayOfPath(path, layout)).toBe(dayOfShape(i));
    files[path] = shape.note;
  });
  return openVault({ path: await makeVault(files, { config }), cache: false });
}

describe.each(DAILY)("the person's daily notes in $folder/$format", (daily) => {
  it('answer "what did I do yesterday", in the vault\'s zone, without a speaker they did not write', async () => {
    const vault = await adopted(daily);
    for (const [i, shape] of SHAPES.entries()) {
      const day = dayOfShape(i);
      const { hits, range } = vault.recall('what did I do yesterday', { now: at(addDays(day, 1)) });
      expect(range, shape.name).toMatchObject({ from: day, to: day, widened: false });
      expect(hits.length, shape.name).toBeGreaterThan(0);
      expect(hits.every((h) => h.date === day)).toBe(true);
      const own = hits.filter((h) => !h.anchor.startsWith('^'));
      for (const item of shape.person)
        expect(
          own.some((h) => flat(h.text).includes(flat(item.text))),
          `${shape.name}: ${item.text}`,
        ).toBe(true);
      expect(own.every((h) => h.speaker === undefined)).toBe(true);
      for (const item of shape.mem ?? [])
        expect(hits.find((h) => h.text === item.text)).toMatchObject({
          speaker: item.speaker,
          time: item.time,
        });
    }
    await vault.close();
  });

  it('answer "last week" with every day of it', async () => {
    const vault = await adopted(daily);
    const { hits, range } = vault.recall('what happened last week', { now: AFTER, k: 30 });
    expect(range).toMatchObject({ from: WEEK.from, to: WEEK.to });
    const texts = hits.map((h) => flat(h.text)).join('\n');
    for (const shape of SHAPES)
      for (const item of [...shape.person, ...(shape.mem ?? [])])
        expect(texts, `${shape.name}: ${item.text}`).toContain(flat(item.text));
    await vault.close();
  });

  it("show in compile's recent section", async () => {
    const vault = await adopted(daily);
    const { markdown } = vault.compile({ message: 'hello', now: AFTER });
    const recent = markdown.slice(markdown.indexOf('## Recent'));
    expect(markdown).toContain('## Recent');
    for (const shape of SHAPES)
      for (const item of shape.person)
        expect(flat(recent), `${shape.name}: ${item.text}`).toContain(flat(item.text));
    await vault.close();
  });

  it('are covered by the weekly rollup written without a model', async () => {
    const vault = await adopted(daily);
    const result = await vault.rollup({ level: 'week', now: AFTER, dryRun: true });
    const written = result.written.find((w) => w.period === WEEK.period);
    expect(written?.generator).toBe('extractive');
    const text = flat(written?.text ?? '');
    // Every day of the week is a part of it, and the highlights quote the person's own words.
    for (const shape of SHAPES) expect(text, shape.name).toContain(flat(shape.person[0]!.text).slice(0, 40));
    expect(text).toContain('over 5 days');
    await vault.close();
  });

  it('count as days mem status has not reflected yet', async () => {
    const vault = await adopted(daily);
    const status = await vaultStatus(vault.root);
    expect(status.reflection).toMatchObject({ pendingDays: SHAPES.length, oldestPending: WEEK.from });
    await vault.close();
  });

  it("are days of the web page's day list, with their items and times", async () => {
    const vault = await adopted(daily);
    const server: HttpServer = await serveHttp({ source: singleVault(vault), port: 0 });
    try {
      const get = async (path: string) => (await (await fetch(`${server.url}${path}`)).json()) as never;
      const { days } = (await get('/days')) as { days: Array<Record<string, unknown>> };
      expect(days.map((d) => d['date'])).toEqual(SHAPES.map((_, i) => dayOfShape(i)).reverse());
      for (const [i, shape] of SHAPES.entries()) {
        const all = [...shape.person, ...(shape.mem ?? [])];
        const times = all.flatMap((item) => (item.time ? [item.time] : [])).sort();
        const day = days.find((d) => d['date'] === dayOfShape(i));
        expect(day, shape.name).toMatchObject({
          entries: all.length,
          speakers: (shape.mem ?? []).map((m) => m.speaker),
          ...(times.length > 0 ? { first: times[0], last: times.at(-1) } : {}),
        });
        const { entries } = (await get(`/days/${dayOfShape(i)}`)) as {
          entries: Array<Item & { id: string }>;
        };
        // Timed ones in time order, then the rest as written; the person's without a speaker.
        const timed = all.filter((item) => item.time).sort((a, b) => (a.time! < b.time! ? -1 : 1));
        const expected = [...timed, ...all.filter((item) => !item.time)];
        expect(
          entries.map(({ time, speaker, text }) => ({
            ...(time ? { time } : {}),
            ...(speaker ? { speaker } : {}),
            text,
          })),
          shape.name,
        ).toEqual(expected);
        // A person's item opens the context of its turn, as mem's entries do.
        const own = entries.find((e) => !e.speaker)!;
        const turn = (await get(`/turn?entry=${encodeURIComponent(own.id)}`)) as Record<string, never>;
        expect(turn['entry'], shape.name).toMatchObject({ id: own.id, date: dayOfShape(i) });
        expect(turn['entry']).not.toHaveProperty('speaker');
      }
    } finally {
      await server.close();
      await vault.close();
    }
  });
});
