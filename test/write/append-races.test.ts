// An editor's saves at every step of an append: before mem reads the day, while it waits for the
// day to settle, between its check that the day is as read and its write, and after the write;
// saved in place, by rename, or under way (the first part written, the rest at a later step, as a
// save stands still between its writes). Whatever the interleaving, every entry is in the day exactly once and every line the
// person saved is kept. A save under way when mem read the day and ended before mem's write put
// earlier entries in the day twice (CI, 2026-12-06: 43 entries of 40).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
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

type Save = 'in place' | 'by rename' | 'under way' | 'reload';
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
  private hands = 0;
  private rest: { text: string; in: number } | undefined;
  readonly saved: string[] = [];

  constructor(private readonly file: string) {
    this.buffer = readFileSync(file, 'utf8');
  }

  /** Called at every point the append passes: writes the rest of a save under way when due. */
  tick(): void {
    if (this.rest && --this.rest.in <= 0) this.finish();
  }

  finish(): void {
    if (!this.rest) return;
    writeFileSync(this.file, this.rest.text);
    this.rest = undefined;
  }

  act(save: Save, restAfter: number): void {
    this.finish();
    if (save === 'reload') {
      this.buffer = readFileSync(this.file, 'utf8');
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
      // The first writes of the save: whole lines up to about half of the text.
      const half = this.buffer.lastIndexOf('\n', Math.floor(this.buffer.length / 2)) + 1;
      writeFileSync(this.file, this.buffer.slice(0, half));
      this.rest = { text: this.buffer, in: restAfter };
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
  await say(3);
  setRaceHook(undefined);
  // A save still under way ends; the next append puts back what a late save dropped.
  editor.finish();
  await say(4);

  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < 5; i++) {
    expect(lines.filter((l) => / \*\*A:\*\* entry (\d+) \^/.exec(l)?.[1] === String(i))).toHaveLength(1);
  }
  for (const hand of editor.saved) expect(lines).toContain(hand);
  expect(
    lines.filter((l) => !/^(- \d\d:\d\d \*\*A:\*\* entry \d \^e\d+|H hand \d+|# 2026-11-30|)$/.test(l)),
  ).toEqual([]);
}

const step: fc.Arbitrary<Step> = fc.record({
  point: fc.constantFrom<RacePoint>('before-read', 'settling', 'before-write', 'after-write'),
  nth: fc.integer({ min: 1, max: 2 }),
  save: fc.constantFrom<Save>('in place', 'by rename', 'under way', 'reload'),
  restAfter: fc.integer({ min: 1, max: 2 }),
});

describe('an editor saving at any step of an append', () => {
  it('a save under way when the day is read, ended before the write: no entry twice', async () => {
    // Its first half stands still through two reads, and its rest is written just before mem's.
    await run([{ point: 'before-read', nth: 1, save: 'under way', restAfter: 2 }]);
  });

  it('any interleaving keeps every entry once and every saved line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), async (steps) => {
        setRaceHook(undefined);
        await run(steps);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
