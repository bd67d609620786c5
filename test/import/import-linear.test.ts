// One conversation of many messages imports in time linear in its day's length. Measured as work,
// not time: the characters that whole-text searches (includes, indexOf, split, every regular
// expression run) look through while the import runs. A search of the day note per message (for
// the message's block id, its line, the next free id, a copy of the note per placed entry) makes
// that grow with the square of the messages; one reading of the note makes it grow with their number.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/index.js';
import { importHistory } from '../../src/write/import/import-history.js';
import { gitVault } from '../helpers/git.js';
import { cleanupVaults } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

/** A ChatGPT export of one conversation of `n` messages, a second apart, all on 2023-11-14 (UTC). */
function conversation(n: number): string {
  const start = 1_699_920_000;
  const mapping: Record<string, unknown> = { r: { id: 'r', message: null, parent: null, children: ['m0'] } };
  for (let i = 0; i < n; i++) {
    mapping[`m${i}`] = {
      id: `m${i}`,
      parent: i === 0 ? 'r' : `m${i - 1}`,
      children: i + 1 < n ? [`m${i + 1}`] : [],
      message: {
        author: { role: i % 2 ? 'assistant' : 'user' },
        content: { content_type: 'text', parts: [`message ${i} about tea, rain and the walk home`] },
        create_time: start + i,
      },
    };
  }
  return JSON.stringify([{ title: 'long', create_time: start, current_node: `m${n - 1}`, mapping }]);
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** The characters whole-text searches looked through while `run` ran. */
async function scanned(run: () => Promise<unknown>): Promise<number> {
  let chars = 0;
  const strings = ['includes', 'indexOf', 'lastIndexOf', 'split'] as const;
  const proto = String.prototype as unknown as Record<string, Method>;
  const saved = strings.map((name) => proto[name]!);
  const exec = RegExp.prototype.exec;
  strings.forEach((name, i) => {
    const original = saved[i]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      chars += String(this).length;
      return original.apply(this, args);
    };
  });
  // A regular expression's search runs through exec (test, match, matchAll, replace, split); a
  // global one resumes at lastIndex, so one search is counted once, from its start.
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    if (this.lastIndex === 0) chars += String(text).length;
    return exec.call(this, text);
  };
  try {
    await run();
  } finally {
    strings.forEach((name, i) => {
      proto[name] = saved[i]!;
    });
    RegExp.prototype.exec = exec;
  }
  return chars;
}

async function importWork(n: number): Promise<number> {
  const root = await gitVault({}, { config: { timezone: 'UTC' } });
  const file = join(root, 'conversations.json');
  await writeFile(file, conversation(n));
  const config = await loadConfig(root);
  let added = 0;
  const work = await scanned(async () => {
    added = (await importHistory(root, config, file, { now: new Date('2025-03-01T12:00:00Z') })).added;
  });
  expect(added).toBe(n);
  return work;
}

describe('importing one long conversation', () => {
  it('does work linear in the day: twice the messages, about twice the work, up to 20,000', async () => {
    const sizes = [2_500, 5_000, 10_000, 20_000];
    const work: number[] = [];
    for (const n of sizes) work.push(await importWork(n));
    // Square growth would be ×4 per doubling; linear is ×2 (plus what does not grow at all).
    for (let i = 1; i < sizes.length; i++) expect(work[i]! / work[i - 1]!, `${sizes[i]}`).toBeLessThan(2.5);
    // And per message, a bounded amount: never a pass over the whole day per message.
    const perMessage = work.at(-1)! / sizes.at(-1)!;
    expect(perMessage).toBeLessThan(20 * 1000);
  }, 300_000);
});
