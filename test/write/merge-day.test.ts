// The entry-level merge of a day note, over random interleavings of adds, edits and deletes of
// entries and of a person's lines on both sides: every entry that should survive does, once, in
// time order, without conflict markers; merge(x, x) = x; swapping the sides changes only the ids.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockIdNumber } from '../../src/write/episode-entry.js';
import { mergeDay } from '../../src/write/sync/merge-day.js';

const DATE = '2026-11-29';
const HEAD = ['---', `date: ${DATE}`, 'type: episode', '---', `# ${DATE}`, ''];

type Item = { kind: 'entry'; id: string; time: number; text: string } | { kind: 'text'; text: string };

const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

function render(items: Item[], head = HEAD): string {
  const lines = items.map((x) =>
    x.kind === 'entry' ? `- ${hhmm(x.time)} **Rain:** ${x.text} ^${x.id}` : x.text,
  );
  return `${[...head, ...lines].join('\n')}\n`;
}

type Op =
  | { op: 'add'; gap: number }
  | { op: 'edit'; pick: number }
  | { op: 'delete'; pick: number }
  | { op: 'hand'; at: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('add' as const), gap: fc.integer({ min: 0, max: 30 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('edit' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('hand' as const), at: fc.nat() }) },
);

interface Side {
  items: Item[];
  /** What happened to base entries, by text: edited to, or deleted */
  edited: Map<string, string>;
  deleted: Set<string>;
  added: Set<string>;
  hands: Set<string>;
  /** An add took the id of a base entry this side deleted (the highest id is free again) */
  reused: boolean;
}

/**
 * Applies ops as mem and a person would: adds get the next id and a later time; with a `device`
 * tag the id carries it (`e7-aaaa`), as on a vault with a remote (device-tag.ts).
 */
function play(base: Item[], ops: Op[], tag: string, start: number, device?: string): Side {
  const items = base.map((x) => ({ ...x }));
  const side: Side = {
    items,
    edited: new Map(),
    deleted: new Set(),
    added: new Set(),
    hands: new Set(),
    reused: false,
  };
  const origin = new Map(items.flatMap((x) => (x.kind === 'entry' ? [[x.text, x.text] as const] : [])));
  let clock = start;
  ops.forEach((op, k) => {
    const entries = items.flatMap((x, i) => (x.kind === 'entry' ? [i] : []));
    if (op.op === 'add') {
      const max = Math.max(0, ...items.map((x) => (x.kind === 'entry' ? blockIdNumber(x.id) : 0)));
      clock += op.gap;
      const text = `${tag}${k} added`;
      const id = device ? `e${max + 1}-${device}` : `e${max + 1}`;
      if (base.some((b) => b.kind === 'entry' && b.id === id)) side.reused = true;
      items.push({ kind: 'entry', id, time: Math.min(clock, 1439), text });
      side.added.add(text);
    } else if (op.op === 'hand') {
      const text = `${tag}${k} a note by hand`;
      items.splice(op.at % (items.length + 1), 0, { kind: 'text', text });
      side.hands.add(text);
    } else if (entries.length > 0) {
      const i = entries[op.pick % entries.length]!;
      const x = items[i] as Extract<Item, { kind: 'entry' }>;
      const from = origin.get(x.text);
      if (op.op === 'delete') {
        items.splice(i, 1);
        if (from !== undefined) side.deleted.add(from);
        else side.added.delete(x.text);
      } else {
        const text = `${tag}${k} edited`;
        if (from !== undefined) {
          side.edited.set(from, text);
          origin.set(text, from);
        } else {
          side.added.delete(x.text);
          side.added.add(text);
        }
        items[i] = { ...x, text };
      }
    }
  });
  // An entry edited then deleted is deleted; one deleted is not also edited.
  for (const d of side.deleted) side.edited.delete(d);
  return side;
}

/** Entry texts the merge must hold, each once. */
function expected(base: Item[], o: Side, t: Side): string[] {
  const out: string[] = [...o.added, ...t.added];
  for (const x of base) {
    if (x.kind !== 'entry') continue;
    const eo = o.edited.get(x.text);
    const et = t.edited.get(x.text);
    if (eo) out.push(eo);
    if (et) out.push(et);
    if (!eo && !et && !o.deleted.has(x.text) && !t.deleted.has(x.text)) out.push(x.text);
  }
  return out.sort();
}

const ENTRY = /^- (\d\d:\d\d) \*\*Rain:\*\* (.*) \^(e\d+(?:-[0-9a-z]+)?)$/;

function entriesOf(text: string) {
  return text.split('\n').flatMap((l) => {
    const m = ENTRY.exec(l);
    return m ? [{ time: m[1]!, text: m[2]!, id: m[3]! }] : [];
  });
}

/** A base of up to `maxBase` entries and each side's ops; `minOps` and more ops a side. */
const scenarioOf = (maxBase: number, minOps: number, maxOps: number, minBase = 0, tagged = false) =>
  fc
    .record({
      baseCount: fc.integer({ min: minBase, max: maxBase }),
      ours: fc.array(opArb, { minLength: minOps, maxLength: maxOps }),
      theirs: fc.array(opArb, { minLength: minOps, maxLength: maxOps }),
    })
    .map(({ baseCount, ours, theirs }) => {
      // Base entries a few minutes apart, all before the adds (which stop at 23:59).
      const step = maxBase > 60 ? 3 : 10;
      const base: Item[] = Array.from({ length: baseCount }, (_, i) => ({
        kind: 'entry' as const,
        id: `e${i + 1}`,
        time: 8 * 60 + i * step,
        text: `base${i}`,
      }));
      const start = 8 * 60 + baseCount * step;
      const [to, tt] = tagged ? ['aaaa', 'bbbb'] : [];
      return { base, o: play(base, ours, 'o', start, to), t: play(base, theirs, 't', start, tt) };
    });

const scenario = scenarioOf(6, 0, 12);
/** Each side a device with its own tag, over a base of plain ids (written before a remote, or by an older mem). */
const taggedScenario = scenarioOf(6, 0, 12, 0, true);
/** Days far apart: scores of edits a side, past the exact diff's 64 (diff-lines.ts). */
const farScenario = scenarioOf(150, 40, 120, 60);

/** mergeDay's promises for one scenario: each entry and hand line once, ids unique, time order; the merged text. */
function expectMergePromises({ base, o, t }: { base: Item[]; o: Side; t: Side }): string {
  const merged = mergeDay(render(base), render(o.items), render(t.items), DATE).text;
  const entries = entriesOf(merged);
  expect(entries.map((e) => e.text).sort()).toEqual(expected(base, o, t));
  expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  const times = entries.map((e) => e.time);
  expect(times).toEqual([...times].sort());
  const lines = merged.split('\n');
  for (const hand of [...o.hands, ...t.hands]) expect(lines.filter((l) => l === hand)).toHaveLength(1);
  return merged;
}

describe('mergeDay', () => {
  it('keeps every entry and every hand line once, in time order, without markers; ids unique', () => {
    fc.assert(
      fc.property(scenario, (sides) => {
        const merged = expectMergePromises(sides);
        expect(merged).not.toMatch(/^(<{7}|={7}|>{7})/m);
        expect(merged.startsWith(`${HEAD.join('\n')}\n`)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the same promises on days far apart, where the exact diff gives way to the anchored one', () => {
    fc.assert(
      fc.property(farScenario, (sides) => {
        expectMergePromises(sides);
      }),
      { numRuns: 60 },
    );
  });

  it('is idempotent and takes one side when the other did nothing', () => {
    fc.assert(
      fc.property(scenario, ({ base, o, t }) => {
        const [b, x, y] = [render(base), render(o.items), render(t.items)];
        expect(mergeDay(b, x, x, DATE).text).toBe(x);
        expect(mergeDay(b, b, y, DATE).text).toBe(y);
        expect(mergeDay(b, x, b, DATE).text).toBe(x);
      }),
      { numRuns: 300 },
    );
  });

  it('is symmetric up to the renumbering (and, where an id was reused, up to the order within a minute)', () => {
    const strip = (text: string) => text.replace(/ \^e\d+$/gm, '');
    const times = (text: string) => entriesOf(text).map((e) => e.time);
    fc.assert(
      fc.property(scenario, ({ base, o, t }) => {
        const [b, x, y] = [render(base), render(o.items), render(t.items)];
        const [xy, yx] = [mergeDay(b, x, y, DATE).text, mergeDay(b, y, x, DATE).text];
        if (!o.reused && !t.reused) expect(strip(xy)).toBe(strip(yx));
        expect(strip(xy).split('\n').sort()).toEqual(strip(yx).split('\n').sort());
        expect(times(xy)).toEqual(times(yx));
      }),
      { numRuns: 300 },
    );
  });

  it("moves no id between devices: each side's entries keep the ids they were given, and only an entry both edited gets a second", () => {
    fc.assert(
      fc.property(taggedScenario, (sides) => {
        const { base, o, t } = sides;
        const merged = expectMergePromises(sides);
        const { renumbered } = mergeDay(render(base), render(o.items), render(t.items), DATE);
        const named = new Map(entriesOf(merged).map((e) => [e.id, e.text]));
        for (const side of [o, t])
          for (const x of side.items)
            if (x.kind === 'entry' && side.added.has(x.text)) expect(named.get(x.id), x.id).toBe(x.text);
        // A base entry keeps its id, under one of its versions; only one both sides edited apart
        // is renumbered (theirs' version, which the ours' id does not name).
        for (const x of base) {
          if (x.kind !== 'entry') continue;
          const versions = [x.text, o.edited.get(x.text), t.edited.get(x.text)];
          if (named.has(x.id)) expect(versions).toContain(named.get(x.id));
        }
        for (const id of renumbered.keys()) {
          const x = base.find((b) => b.kind === 'entry' && b.id === id) as Extract<Item, { kind: 'entry' }>;
          expect(x, id).toBeDefined();
          expect(o.edited.has(x.text) && t.edited.has(x.text), id).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('renumbers theirs on a clash and rewrites the links theirs wrote to it', () => {
    const base = render([]);
    const ours = `${base}- 09:00 **Rain:** tea ^e1\n`;
    const theirs = `${base}- 09:05 **Rain:** coffee ^e1\n- 09:06 **Aiko:** as in [[${DATE}#^e1]] and [[#^e1|that]] ^e2\n`;
    const { text, renumbered } = mergeDay(base, ours, theirs, DATE);
    expect(renumbered).toEqual(new Map([['e1', 'e3']]));
    expect(text).toBe(
      `${base}- 09:00 **Rain:** tea ^e1\n- 09:05 **Rain:** coffee ^e3\n- 09:06 **Aiko:** as in [[${DATE}#^e3]] and [[#^e3|that]] ^e2\n`,
    );
  });

  it('keeps both versions of a frontmatter line both sides changed, and a multi-line entry whole', () => {
    const base = render([]);
    const ours =
      base.replace('type: episode', 'type: episode\nmood: calm') + '- 09:00 **Rain:** one\n  two ^e1\n';
    const theirs = base.replace('type: episode', 'type: episode\nmood: tired');
    const { text } = mergeDay(base, ours, theirs, DATE);
    expect(text).toContain('mood: calm\nmood: tired\n');
    expect(text.endsWith('- 09:00 **Rain:** one\n  two ^e1\n')).toBe(true);
  });
});
