// Ids cited before a sync still name the same entries after it (issue 32). Two clones where mem runs
// each add entries to the same days while apart, a third clone where mem never ran (a phone with
// obsidian-git) types into the same day and pulls with git's built-in union merge, and the clones
// meet through `mem sync`, plain `git pull`s that fall back to the union merge (repaired by mem's
// next write or sync), in generated interleavings. Every id an add handed out (its `blockId` and
// its `link`, as `/memory/add` and MCP hand them to a host) names the entry it was given to, in
// every clone, at every step: no sync renumbers one. Ids written by older mem versions (plain `^eN`
// on both sides) still clash, and still merge without markers, renumbered and reported.
// Needs `npm run build` (the CLI's `mem show`).
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { entryText } from '../../src/vault/markdown/entry-text.js';
import { GIT_ENV, git } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { mem } from '../helpers/run-cli.js';
import { type Clones, countLine, DAY, DAY_PATH, expectHealthy, notesOf, twoClones } from './sync-helpers.js';

const run = promisify(execFile);

afterEach(cleanupVaults);

const SLOW = process.env['MEM_SLOW'] === '1';
const RUNS = SLOW ? 25 : 3;
const TIMEOUT = SLOW ? 1_800_000 : 300_000;

/** The day every clone has from the start (with `^e1`), and one each side may make on its own. */
const DAYS = [DAY, '2026-11-30'] as const;
const dayPath = (day: string) => `episodes/daily/${day}.md`;

/** What mem's driver falls back to where `mem` is not on PATH: git's own union merge. */
const UNION_DRIVER = 'git merge-file --union -q %A %O %B';

/** Texts that look like ids or cite them, as a person's words may. */
const LOOKS = ['', ' ^e2', ' ^e3-k7q2', ' as in [[2026-11-29#^e1]]', ' on two\nlines'];

type Who = 'a' | 'b';
type Step =
  | { op: 'add'; who: Who; day: 0 | 1; count: number; minute: number; look: number }
  | { op: 'sync'; who: Who }
  | { op: 'pull'; who: Who }
  | { op: 'phone'; day: 0 | 1; minute: number; id: boolean };

const who = fc.constantFrom<Who>('a', 'b');
const day = fc.constantFrom<0 | 1>(0, 1);
const minute = fc.integer({ min: 0, max: 1439 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      who,
      day,
      count: fc.integer({ min: 1, max: 3 }),
      minute,
      look: fc.nat({ max: LOOKS.length - 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('sync' as const), who }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pull' as const), who }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('phone' as const), day, minute, id: fc.boolean() }),
  },
);

/** One id an add handed out: the day, the text it was given to (as the index reads it back). */
interface Given {
  id: string;
  day: string;
  text: string;
}

const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

interface World extends Clones {
  phone: string;
  given: Given[];
  /** Lines the person typed on the phone */
  typed: string[];
  /** Every `renumbered` a sync reported */
  renumbered: string[];
}

/** Two clones and the phone, all with the `.gitattributes` line from clone a's first sync. */
async function world(): Promise<World> {
  const c = await twoClones();
  const phone = join(c.bare, '..', 'phone');
  await run('git', ['clone', '-q', c.bare, phone], { env: GIT_ENV });
  await git(phone, 'config', 'user.name', 'Phone');
  await git(phone, 'config', 'user.email', 'test@example.com');
  const w: World = { ...c, phone, given: [], typed: [], renumbered: [] };
  await sync(w, c.a);
  for (const root of [c.b, phone])
    await git(root, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
  // The phone never runs mem: git's built-in union merge is all it has.
  expect(await git(phone, 'config', '--get-regexp', '^merge\\.').catch(() => '')).toBe('');
  return w;
}

async function sync(w: World, root: string): Promise<void> {
  const vault = await openVault({ path: root, cache: false });
  try {
    const result = await vault.sync();
    w.renumbered.push(...result.renumbered);
  } finally {
    await vault.close();
  }
}

let serial = 0;

async function play(w: World, step: Step): Promise<string> {
  if (step.op === 'add') {
    const root = w[step.who];
    const date = DAYS[step.day];
    const vault = await openVault({ path: root, cache: false });
    try {
      for (let k = 0; k < step.count; k++) {
        const text = `${step.who}${serial++} said${LOOKS[(step.look + k) % LOOKS.length]}`;
        const at = new Date(`${date}T${hhmm(Math.min(1439, step.minute + k))}:00Z`);
        const added = await vault.remember({ text, at });
        // The citation handed back is the id's: the day and the id, nothing else.
        expect(added.link).toBe(`[[${date}#^${added.blockId}]]`);
        w.given.push({ id: added.blockId, day: date, text: entryText(text) });
      }
    } finally {
      await vault.close();
    }
    return root;
  }
  if (step.op === 'sync') {
    await sync(w, w[step.who]);
    return w[step.who];
  }
  if (step.op === 'pull') {
    // A plain pull where mem is not on PATH: the driver's fallback is git's union merge.
    const root = w[step.who];
    await git(
      root,
      '-c',
      `merge.union.driver=${UNION_DRIVER}`,
      'pull',
      '-q',
      '--no-rebase',
      '--no-edit',
      'origin',
      'main',
    );
    await git(root, 'push', '-q', 'origin', 'main');
    return root;
  }
  // The phone: typed into a day (made by hand when the phone has none yet), committed, pulled, pushed.
  const n = serial++;
  const date = DAYS[step.day];
  const abs = join(w.phone, dayPath(date));
  const line = `- ${hhmm(step.minute)} **Rain:** typed on the phone p${n}${step.id ? ` ^ph${n}` : ''}`;
  const was = await readFile(abs, 'utf8').catch(() => undefined);
  await mkdir(join(abs, '..'), { recursive: true });
  await writeFile(abs, `${was ?? `# ${date}\n\n`}${line}\n`);
  w.typed.push(line);
  await git(w.phone, 'add', '-A');
  await git(w.phone, 'commit', '-q', '-m', 'vault backup');
  await git(w.phone, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
  await git(w.phone, 'push', '-q', 'origin', 'main');
  return w.phone;
}

/**
 * Every id handed out names the entry it was given to in the clone at `root`: each section under
 * it (a union merge not yet repaired may hold an entry twice) has that entry's text. `final`: each
 * is there exactly once, and the day holds no id twice.
 */
async function expectIdsHold(w: World, root: string, final = false): Promise<void> {
  const vault = await openVault({ path: root, cache: false });
  try {
    const paths = new Set(vault.paths());
    for (const g of w.given) {
      const path = dayPath(g.day);
      if (!paths.has(path)) {
        expect(final, `${root}: ${path} is missing`).toBe(false);
        continue;
      }
      const under = vault
        .note(path)
        .sections.filter((s) => s.anchor === `^${g.id}` || s.anchor.startsWith(`^${g.id} (`));
      for (const s of under) expect(s.text, `${root}: ^${g.id} names another entry`).toBe(g.text);
      if (final)
        expect(
          under.map((s) => s.anchor),
          `${root}: ^${g.id}`,
        ).toEqual([`^${g.id}`]);
    }
    if (final) expect(vault.doctor().duplicateBlockIds).toEqual([]);
  } finally {
    await vault.close();
  }
}

/** Syncs a and b until they hold the same commit (a repair after a sync goes out with the next), then the phone pulls. */
async function converge(w: World): Promise<void> {
  for (let round = 0; round < 4; round++) {
    await sync(w, w.a);
    await sync(w, w.b);
    await sync(w, w.a);
    const [ha, hb] = [await git(w.a, 'rev-parse', 'HEAD'), await git(w.b, 'rev-parse', 'HEAD')];
    if (ha === hb) break;
  }
  expect(await git(w.a, 'rev-parse', 'HEAD')).toBe(await git(w.b, 'rev-parse', 'HEAD'));
  await git(w.phone, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
}

/** What the generator tried, for docs/reliability.md. */
const tried = { interleavings: 0, steps: 0, ids: 0, moved: 0 };

async function scenario(steps: Step[]): Promise<void> {
  serial = 0;
  const w = await world();
  for (const step of steps) {
    const root = await play(w, step);
    await expectIdsHold(w, root);
  }
  await converge(w);
  // No sync had to move an id: every one mem gave out carries its clone's tag.
  expect(w.renumbered).toEqual([]);
  const tags = new Set(w.given.map((g) => /^e\d+-([0-9a-z]{4})$/.exec(g.id)?.[1]));
  expect([...tags].every((t) => t !== undefined)).toBe(true);
  const notes = await expectHealthy(w.a);
  expect(await expectHealthy(w.b)).toEqual(notes);
  expect(await expectHealthy(w.phone)).toEqual(notes);
  for (const root of [w.a, w.b, w.phone]) await expectIdsHold(w, root, true);
  for (const line of w.typed) expect(countLine(notes, line), line).toBe(1);
  // `mem show` of each day reads back every id with its entry, as a citation resolves.
  for (const date of DAYS) {
    const mine = w.given.filter((g) => g.day === date);
    if (mine.length === 0) continue;
    const shown = await mem(['--vault', w.a, 'show', dayPath(date), '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const sections = (
      JSON.parse(shown.stdout) as { note: { sections: Array<{ anchor: string; text: string }> } }
    ).note.sections;
    for (const g of mine) expect(sections.find((s) => s.anchor === `^${g.id}`)?.text, g.id).toBe(g.text);
  }
  tried.interleavings++;
  tried.steps += steps.length;
  tried.ids += w.given.length;
}

describe('ids handed out before a sync', () => {
  it(
    'name the same entries after it, over generated interleavings of two mem clones and a phone',
    async () => {
      // A fixed case first: both clones on the same day at once, the phone between, a union pull.
      const fixed: Step[] = [
        { op: 'add', who: 'a', day: 0, count: 2, minute: 600, look: 0 },
        { op: 'add', who: 'b', day: 0, count: 2, minute: 590, look: 1 },
        { op: 'phone', day: 0, minute: 595, id: true },
        { op: 'pull', who: 'b' },
        { op: 'add', who: 'b', day: 1, count: 1, minute: 60, look: 4 },
        { op: 'add', who: 'a', day: 1, count: 2, minute: 30, look: 2 },
        { op: 'sync', who: 'a' },
        { op: 'phone', day: 1, minute: 45, id: false },
        { op: 'sync', who: 'b' },
        { op: 'pull', who: 'a' },
        { op: 'add', who: 'a', day: 0, count: 1, minute: 700, look: 3 },
      ];
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 8 }), async (steps) => {
          await cleanupVaults();
          await scenario(steps);
        }),
        { numRuns: RUNS, examples: [[fixed]], endOnFailure: true },
      );
      await reportReliability({ class: 'ids cited before a sync, across two clones and a phone', ...tried });
    },
    TIMEOUT,
  );
});

describe('plain ids from older mem versions', () => {
  it('still clash, and merge without markers: renumbered on the incoming side, reported, links followed; a union pull repaired', async () => {
    const w = await world();
    // An older mem wrote `^e2` on each clone, and clone b cited its own from an insight.
    const write = async (root: string, line: string, cite?: string) => {
      const abs = join(root, DAY_PATH);
      await writeFile(abs, `${await readFile(abs, 'utf8')}${line}\n`);
      if (cite) await writeFile(join(root, 'insights/said.md'), `# Said\n\nAs in ${cite}.\n`);
      await git(root, 'add', '-A');
      await git(root, 'commit', '-q', '-m', 'mem: remember (an older version)');
    };
    await write(w.a, '- 09:00 **Rain:** from the old laptop ^e2');
    await write(w.b, '- 10:00 **Rain:** from the old server ^e2', `[[${DAY}#^e2]]`);
    expect((await mem(['--vault', w.b, 'sync'])).code).toBe(0);
    const merged = await mem(['--vault', w.a, 'sync']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`renumbered: ${DAY}#^e2 -> ^e3`);
    expect((await mem(['--vault', w.b, 'sync'])).code).toBe(0);
    let notes = await expectHealthy(w.a);
    expect(await notesOf(w.b)).toEqual(notes);
    expect(notes.get(DAY_PATH)).toContain(
      '- 09:00 **Rain:** from the old laptop ^e2\n- 10:00 **Rain:** from the old server ^e3\n',
    );
    // Clone b's citation followed its entry to the new id.
    expect(notes.get('insights/said.md')).toContain(`[[${DAY}#^e3]]`);

    // The phone types `^e4` by hand while the old laptop gives out `^e4`: git's union keeps both,
    // and mem's next sync on a clone repairs the day (each id once), without markers.
    await git(w.phone, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    await write(w.a, '- 11:00 **Rain:** the old laptop again ^e4');
    await git(w.a, 'push', '-q', 'origin', 'main');
    await write(w.phone, '- 12:00 **Rain:** typed on the phone ^e4');
    await git(w.phone, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    expect((await readFile(join(w.phone, DAY_PATH), 'utf8')).match(/\^e4$/gm)).toHaveLength(2);
    await git(w.phone, 'push', '-q', 'origin', 'main');
    expect((await mem(['--vault', w.b, 'sync'])).code).toBe(0);
    expect((await mem(['--vault', w.b, 'sync'])).code).toBe(0);
    notes = await expectHealthy(w.b);
    const day = notes.get(DAY_PATH)!;
    expect(day.match(/\^e4$/gm)).toHaveLength(1);
    for (const text of ['the old laptop again', 'typed on the phone']) expect(countLine(notes, text)).toBe(1);
    const ids = [...day.matchAll(/ \^(\S+)$/gm)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
