// Every entry point that writes an episode entry, driven by generated text (full Unicode, lone
// surrogates, injected Markdown structure, block-id look-alikes, %%, fields, Chinese runs): what
// it adds is what the index and recall return, exactly once, with the right speaker and time.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault, type Vault } from '../../src/index.js';
import { ExchangeWriter } from '../../src/live/exchange-writer.js';
import { entryText } from '../../src/vault/markdown/entry-text.js';
import { cleanSpeaker } from '../../src/write/episode-entry.js';
import { holdsLines, type OnPlanned, type RememberInput, rememberAll } from '../../src/write/remember.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';
import { entryTextArb, speakerArb } from './entry-text-arbitraries.js';

const SLOW = process.env['MEM_SLOW'] === '1';
const RUNS = SLOW ? 400 : 25;
/** The slow tier took 64 s for remember on the 2-core machine; a loaded one may take several times that. */
const TIMEOUT = SLOW ? 900_000 : 120_000;
const BASE = Date.parse('2026-01-01T09:00:00+08:00');
const DAY_MS = 86_400_000;

const tried: Record<string, { cases: number; entries: number }> = {};
function count(point: string, entries: number): void {
  tried[point] ??= { cases: 0, entries: 0 };
  tried[point].cases++;
  tried[point].entries += entries;
}

afterAll(async () => {
  for (const [point, n] of Object.entries(tried))
    await reportReliability({
      class: `entry text via ${point}`,
      cases: n.cases,
      entries: n.entries,
      lost: 0,
      duplicated: 0,
    });
  await cleanupVaults();
});

interface Expected {
  text: string;
  speaker?: string;
  time: string;
}

/** Each case writes to its own day, so one vault serves a whole run. */
let dayIndex = 0;
function nextDay(): { at: Date; date: string } {
  const at = new Date(BASE + dayIndex++ * DAY_MS);
  return { at, date: at.toISOString().slice(0, 10) };
}

function entriesOf(vault: Vault, date: string): Expected[] {
  const path = `episodes/daily/${date}.md`;
  if (!vault.paths().includes(path)) return [];
  return vault
    .note(path)
    .sections.filter((s) => s.kind === 'block')
    .map((s) => ({ text: s.text, time: s.time ?? '', ...(s.speaker ? { speaker: s.speaker } : {}) }));
}

function expectedOf(text: string, speaker: string | undefined, time: string): Expected {
  const name = speaker === undefined ? '' : cleanSpeaker(speaker);
  return { text: entryText(text), time, ...(name ? { speaker: name } : {}) };
}

/** A unique word at the start of the case's first entry, so recall can be asked for it. */
const marker = (n: number) => `zqmark${n}x`;

describe('every entry point keeps generated text exactly, once', () => {
  it(
    'remember: the day holds exactly the entries written, and recall returns the text',
    async () => {
      const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai' } });
      const vault = await openVault({ path: root, cache: false });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ text: entryTextArb, speaker: fc.option(speakerArb, { nil: undefined }) }), {
            minLength: 1,
            maxLength: 4,
          }),
          async (inputs) => {
            const { at, date } = nextDay();
            const mark = marker(dayIndex);
            const expected: Expected[] = [];
            for (const [i, input] of inputs.entries()) {
              const text = i === 0 ? `${mark} ${input.text}` : input.text;
              if (entryText(text) === '') {
                await expect(vault.remember({ ...input, text, at })).rejects.toThrow('nothing to remember');
                continue;
              }
              await vault.remember({ ...input, text, at, noRedact: true });
              expected.push(expectedOf(text, input.speaker, '09:00'));
            }
            count('remember', expected.length);
            expect(entriesOf(vault, date)).toEqual(expected);
            const hit = vault.recall(mark, { now: at }).hits.find((h) => h.date === date);
            expect(hit?.text).toBe(expected[0]!.text);
          },
        ),
        { numRuns: RUNS },
      );
      await vault.close();
    },
    TIMEOUT,
  );

  it(
    'ingest: every turn of a generated JSONL transcript is one entry; a second import adds nothing',
    async () => {
      const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai' } });
      const vault = await openVault({ path: root, cache: false });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ text: entryTextArb, speaker: fc.constantFrom('user', 'assistant', 'Rain') }), {
            minLength: 1,
            maxLength: 4,
          }),
          async (turns) => {
            const { at, date } = nextDay();
            const jsonl = turns
              .map((t, i) =>
                JSON.stringify({
                  role: t.speaker,
                  content: t.text,
                  timestamp: new Date(at.getTime() + i * 60_000).toISOString(),
                }),
              )
              .join('\n');
            // A turn that is only spaces is not a turn (parseTranscript), one that sanitizes to nothing is not an entry.
            const kept = turns
              .map((t, i) => ({ ...t, time: `09:0${i}` }))
              .filter((t) => t.text.trim() !== '' && entryText(t.text) !== '');
            const first = await vault.ingest(jsonl, { name: 'chat.jsonl', noRedact: true });
            expect(first.added).toBe(kept.length);
            count('ingest', kept.length);
            expect(entriesOf(vault, date)).toEqual(kept.map((t) => expectedOf(t.text, t.speaker, t.time)));
            const again = await vault.ingest(jsonl, { name: 'chat.jsonl', noRedact: true });
            expect(again.added).toBe(0);
            expect(entriesOf(vault, date)).toHaveLength(kept.length);
          },
        ),
        { numRuns: RUNS },
      );
      await vault.close();
    },
    TIMEOUT,
  );

  it(
    '/memory/add (the exchange writer): each add once, also when a kill comes after the append and before the mark',
    async () => {
      const root = await makeVault({}, { config: { timezone: 'Asia/Shanghai' } });
      const vault = await openVault({ path: root, cache: false });
      let killAfterAppend = false;
      // The real write path, with a kill between an entry's append and the journal's written mark.
      const target = {
        remember: async (inputs: RememberInput[], onPlanned?: OnPlanned) => {
          const result = await rememberAll(root, vault.config, inputs, onPlanned);
          if (killAfterAppend) {
            killAfterAppend = false;
            throw new Error('killed after the append');
          }
          return result;
        },
        holds: (path: string, lines: string[]) => holdsLines(root, path, lines),
        commit: async () => ({ committed: false, code: 'unchanged' as const, reason: 'no paths to commit' }),
      };
      const writer = await ExchangeWriter.start(target, join(root, '.mem/adds.jsonl'), { retryMs: 1 });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ user: entryTextArb, assistant: entryTextArb, kill: fc.boolean() }), {
            minLength: 1,
            maxLength: 3,
          }),
          async (adds) => {
            const { at, date } = nextDay();
            const expected: Expected[] = [];
            for (const add of adds) {
              killAfterAppend = add.kill;
              const result = await writer.add({ user: add.user, assistant: add.assistant, at }, 'exchange');
              const sides = [
                ['user', add.user],
                ['assistant', add.assistant],
              ].filter(([, text]) => entryText(text!) !== '');
              expect(result.kept).toBe(sides.length);
              for (const [speaker, text] of sides) expected.push(expectedOf(text!, speaker, '09:00'));
              // A killed add is retried from the journal; wait until nothing is queued.
              await expect.poll(() => writer.health().queued, { timeout: 10_000, interval: 5 }).toBe(0);
            }
            count('exchange writer', expected.length);
            await vault.refreshPaths([`episodes/daily/${date}.md`]);
            expect(entriesOf(vault, date)).toEqual(expected);
          },
        ),
        { numRuns: RUNS },
      );
      await writer.close();
      await vault.close();
    },
    TIMEOUT,
  );
});
