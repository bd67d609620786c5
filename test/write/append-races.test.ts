// An editor's saves at every step of an append: before mem reads the day, while it waits for the
// day to settle, between its check that the day is as read and its write, and after the write;
// saved in place, by rename, or under way (the first part written, the rest at a later step, as a
// save stands still between its writes). Whatever the interleaving, every entry is in the day exactly once and every line the
// person saved is kept. A save under way when mem read the day and ended before mem's write put
// earlier entries in the day twice (CI, 2026-12-06: 43 entries of 40).
import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/config.js';
import { type RacePoint, setRaceHook } from '../../src/vault/race-point.js';
import { remember } from '../../src/write/remember.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterEach(async () => {
  setRaceHook(undefined);
  await cleanupVaults();
});

const DAY = 'episodes/daily/2026-11-30.md';
const at = new Date('2026-11-30T12:00:00+08:00');

type Save = 'in place' | 'by rename' | 'under way' | 'reload' | 'sync pull' | 'sync push';
interface Step {
  point: RacePoint;
  /** At the how-manieth time the append passes that point */
  nth: number;
  save: Save;
  /** For a save under way: how many points later its rest is written */
  restAfter: number;
}

/** A person's editor: a copy of the note it saves back with a line added. */
class Editor {
  private buffer: string;
  /** A second writer's copy (a sync client's): taken from the file, written back as it was */
  private synced: string;
  private hands = 0;
  /** A save under way: its open file, its text, where its rest starts, and how many points on */
  private rest: { fd: number; bytes: Buffer; at: number; in: number } | undefined;
  /** Lines the person saved that no other writer has since taken out */
  saved: string[] = [];

  constructor(private readonly file: string) {
    this.buffer = readFileSync(file, 'utf8');
    this.synced = this.buffer;
  }

  /** Called at every point the append passes: writes the rest of a save under way when due. */
  tick(): void {
    if (this.rest && --this.rest.in <= 0) this.finish();
  }

  /** The rest of a save under way, written at its place in the file, as the save's next write. */
  finish(): void {
    if (!this.rest) return;
    const { fd, bytes, at } = this.rest;
    writeSync(fd, bytes, at, bytes.length - at, at);
    closeSync(fd);
    this.rest = undefined;
  }

  act(save: Save, restAfter: number): void {
    this.finish();
    if (save === 'reload') {
      this.buffer = readFileSync(this.file, 'utf8');
      return;
    }
    if (save === 'sync pull') {
      this.synced = readFileSync(this.file, 'utf8');
      return;
    }
    if (save === 'sync push') {
      // Its copy holds no line the editor saved after the copy was taken: those go, by its hand.
      writeFileSync(this.file, this.synced);
      const kept = new Set(this.synced.split('\n'));
      this.saved = this.saved.filter((line) => kept.has(line));
      return;
    }
    const line = `H hand ${this.hands++}`;
    this.saved.push(line);
    this.buffer += `${line}\n`;
    if (save === 'by rename') {
      writeFileSync(`${this.file}.swp`, this.buffer);
      renameSync(`${this.file}.swp`, this.file);
    } else if (save === 'in place') {
      writeFileSync(this.file, this.buffer);
    } else {
      // Truncated, then the first write: whole lines up to about half of the text.
      const bytes = Buffer.from(this.buffer);
      const half = bytes.lastIndexOf(0x0a, Math.floor(bytes.length / 2)) + 1;
      const fd = openSync(this.file, 'w');
      writeSync(fd, bytes, 0, half, 0);
      this.rest = { fd, bytes, at: half, in: restAfter };
    }
  }
}

async function run(steps: Step[]): Promise<void> {
  const root = await makeVault(
    { [DAY]: '# 2026-11-30\n\n' },
    { config: { timezone: 'Asia/Shanghai', git: { autoCommit: false } } },
  );
  const config = await loadConfig(root);
  const file = join(root, DAY);
  const say = (i: number) => remember(root, config, { text: `entry ${i}`, speaker: 'A', at });
  for (let i = 0; i < 3; i++) await say(i);
  const editor = new Editor(file);
  const passed = new Map<RacePoint, number>();
  setRaceHook((point) => {
    editor.tick();
    const nth = (passed.get(point) ?? 0) + 1;
    passed.set(point, nth);
    for (const step of steps)
      if (step.point === point && step.nth === nth) editor.act(step.save, step.restAfter);
  });
  const count = (lines: string[], i: number) =>
    lines.filter((l) => / \*\*A:\*\* entry (\d+) \^/.exec(l)?.[1] === String(i)).length;
  await say(3);
  setRaceHook(undefined);
  // A save still under way ends; the next append puts back what a late save dropped.
  editor.finish();
  const between = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < 4; i++) expect(count(between, i)).toBeLessThanOrEqual(1);
  await say(4);

  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < 5; i++) expect(count(lines, i)).toBe(1);
  for (const hand of editor.saved) expect(lines).toContain(hand);
  expect(
    lines.filter((l) => !/^(- \d\d:\d\d \*\*A:\*\* entry \d \^e\d+|H hand \d+|# 2026-11-30|)$/.test(l)),
  ).toEqual([]);
}

const step: fc.Arbitrary<Step> = fc.record({
  point: fc.constantFrom<RacePoint>('before-read', 'settling', 'after-read', 'before-write', 'after-write'),
  nth: fc.integer({ min: 1, max: 2 }),
  save: fc.constantFrom<Save>('in place', 'by rename', 'under way', 'reload', 'sync pull', 'sync push'),
  restAfter: fc.integer({ min: 1, max: 3 }),
});

describe('an editor saving at any step of an append', () => {
  it('a save under way when the day is read, ended before the write: no entry twice', async () => {
    // Its first half stands still through two reads, and its rest is written just before mem's.
    await run([{ point: 'before-read', nth: 1, save: 'under way', restAfter: 2 }]);
  });

  it('a save under way after the write, then another when the day is read again: no entry twice', async () => {
    // The first save's first half must not become the text a later read is compared with.
    await run([
      { point: 'after-write', nth: 1, save: 'under way', restAfter: 1 },
      { point: 'before-read', nth: 2, save: 'under way', restAfter: 3 },
    ]);
  });

  it('a copy with the entry written back between the read and the append: no entry twice', async () => {
    // A sync client took the day with the new entry, an editor's older copy dropped it, and the
    // sync client writes its copy back after mem read the day without it.
    await run([
      { point: 'after-write', nth: 1, save: 'sync pull', restAfter: 1 },
      { point: 'after-write', nth: 1, save: 'in place', restAfter: 1 },
      { point: 'after-read', nth: 2, save: 'sync push', restAfter: 1 },
    ]);
  });

  it('any interleaving keeps every entry once and every saved line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        setRaceHook(undefined);
        await run(steps);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
