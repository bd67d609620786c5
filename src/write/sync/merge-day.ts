// The merge of two versions of one day's episode note (episodes/daily/YYYY-MM-DD.md), entry by
// entry: the union of both sides' entries by block id, each written once, in time order where both
// added. Ids that devices give out carry the device's tag (`^e7-k7q2`, device-tag.ts), so entries
// two devices wrote while apart never share one and keep their ids: a citation handed out before
// the merge names the same entry after it. Two entries under one id are left only by older mem
// versions and hand-typed ids (two plain `^e7`), or by one entry both sides edited differently:
// then theirs gets a new id and the links to it that theirs wrote are rewritten (reported as
// renumbered). The rest of the note (frontmatter, headings, a person's text) merges three-way by
// lines; what cannot merge keeps both versions. Never writes conflict markers.
// Pure: `git merge` (through the merge driver) and `mem sync` both call it.
import type { DiffWork } from '../../core/diff-lines.js';
import { blockIdNumber, freshBlockIds } from '../episode-entry.js';
import { type MergedLine, mergeLines, type Origin } from './merge-lines.js';

/** One episode entry as written: `- 09:14 **Rain:** text ^e7`, possibly with indented lines. */
interface Entry {
  id: string;
  /** `09:14`, zero-padded; '' when the entry has none */
  time: string;
  lines: string[];
  /** The lines joined, and the entry's token (see entryToken): made once, compared many times */
  body: string;
  token: string;
}

function entryOf(id: string, time: string, lines: string[]): Entry {
  const body = lines.join('\n');
  return { id, time, lines, body, token: `e${id}\u0000${body}` };
}

type Item = { kind: 'text'; line: string } | { kind: 'entry'; entry: Entry };

const ENTRY_START = /^[-*+] /;
const TRAILING_ID = /(?<=^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$/;
const ENTRY_TIME = /^[-*+] (\d{1,2}):(\d{2})(?::\d{2})?(?=\s)/;

function splitText(text: string): { lines: string[]; eol: string; final: boolean } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const final = text.endsWith('\n');
  const lines = text.split(/\r?\n/);
  if (final) lines.pop();
  return { lines: text === '' ? [] : lines, eol, final };
}

/** A day note as text lines and entries. An id a side holds twice counts once; the rest is text. */
function readDayItems(text: string): Item[] {
  const { lines } = splitText(text);
  const items: Item[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let end = -1;
    let id: string | undefined;
    if (ENTRY_START.test(line)) {
      for (let j = i; j < lines.length; j++) {
        if (j > i && !/^[ \t]+\S/.test(lines[j]!)) break;
        id = TRAILING_ID.exec(lines[j]!)?.[1];
        if (id !== undefined) {
          end = j;
          break;
        }
      }
    }
    if (id === undefined || seen.has(id)) {
      items.push({ kind: 'text', line });
      continue;
    }
    seen.add(id);
    const time = ENTRY_TIME.exec(line);
    const entry = entryOf(id, time ? `${time[1]!.padStart(2, '0')}:${time[2]}` : '', lines.slice(i, end + 1));
    items.push({ kind: 'entry', entry });
    i = end;
  }
  return items;
}

function entriesOf(items: Item[]): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const it of items) if (it.kind === 'entry') entries.set(it.entry.id, it.entry);
  return entries;
}

const body = (e: Entry | undefined) => e?.body;

/** What the merge keeps of one block id: the entry under it, and theirs apart when both differ. */
interface Decision {
  kept?: Entry;
  /** Ours kept the id; theirs' different entry gets a new one */
  theirsApart?: Entry;
  /** The kept entry's time is not the base's: it goes where its time puts it, not where it stood */
  moved?: true;
}

function decide(b: Entry | undefined, o: Entry | undefined, t: Entry | undefined): Decision {
  const [vb, vo, vt] = [body(b), body(o), body(t)];
  if (vo === vt) return { kept: o };
  if (o === undefined) return vt === vb ? {} : { kept: t };
  if (t === undefined) return vo === vb ? {} : { kept: o };
  if (vo === vb) return { kept: t };
  if (vt === vb) return { kept: o };
  // Edited on both sides, or added on both with different entries: both stay.
  return { kept: o, theirsApart: t };
}

// Tokens: the line sequences mergeLines compares. Text lines and entries never look alike.
const textToken = (line: string) => `t${line}`;
const entryToken = (e: Entry, apart = false) => (apart ? `a${e.token.slice(1)}` : e.token);

function tokensOf(items: Item[], apart: Set<string>): string[] {
  return items.map((it) =>
    it.kind === 'text' ? textToken(it.line) : entryToken(it.entry, apart.has(it.entry.id)),
  );
}

function withId(e: Entry, id: string): Entry {
  if (id === e.id) return e;
  const lines = [...e.lines];
  lines[lines.length - 1] = lines.at(-1)!.replace(TRAILING_ID, `^${id}`);
  return entryOf(id, e.time, lines);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Orders the runs only one side holds inside a region both changed: entries by time (then text),
 * each side's own order kept, a run of text before the entries after it. Symmetric by design.
 */
function joinRuns(info: Map<string, Entry>) {
  return (ours: string[], theirs: string[]): MergedLine[] => {
    const out: MergedLine[] = [];
    let i = 0;
    let j = 0;
    const textRun = (list: string[], from: number) => {
      let k = from;
      while (k < list.length && !info.has(list[k]!)) k++;
      return k;
    };
    while (i < ours.length || j < theirs.length) {
      const ti = textRun(ours, i);
      const tj = textRun(theirs, j);
      const runO = ours.slice(i, ti);
      const runT = theirs.slice(j, tj);
      if (runO.length > 0 || runT.length > 0) {
        const oFirst =
          runT.length === 0 || (runO.length > 0 && compare(runO.join('\n'), runT.join('\n')) <= 0);
        const [first, second] = oFirst ? [runO, runT] : [runT, runO];
        const [fo, so]: [Origin, Origin] = oFirst ? ['o', 't'] : ['t', 'o'];
        for (const line of first) out.push({ line, origin: fo });
        for (const line of second) out.push({ line, origin: so });
        i = ti;
        j = tj;
        continue;
      }
      const eo = ours[i] === undefined ? undefined : info.get(ours[i]!);
      const et = theirs[j] === undefined ? undefined : info.get(theirs[j]!);
      const takeO =
        et === undefined ||
        (eo !== undefined && (compare(eo.time, et.time) || compare(body(eo)!, body(et)!)) <= 0);
      if (takeO) out.push({ line: ours[i++]!, origin: 'o' });
      else out.push({ line: theirs[j++]!, origin: 't' });
    }
    return out;
  };
}

export interface DayMerge {
  /** The merged note */
  text: string;
  /** Theirs' entries that got a new block id: old id → new id */
  renumbered: Map<string, string>;
}

/**
 * Rewrites links to renumbered ids of the day `date` in `line`: `[[2026-11-29#^e7]]`,
 * `[[episodes/daily/2026-11-29.md#^e7|x]]`, and in the day note itself (`inDay`) `[[#^e7]]`.
 */
export function rewriteDayLinks(
  line: string,
  date: string,
  renumbered: Map<string, string>,
  inDay = false,
): string {
  if (renumbered.size === 0 || !line.includes('#^')) return line;
  const day = date.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const name = String.raw`(?:[^\[\]|#\n]*/)?${day}(?:\.md)?`;
  const link = new RegExp(String.raw`(\[\[${inDay ? `(?:${name})?` : name}#\^)([A-Za-z0-9-]+)(?=[\]|])`, 'g');
  return line.replace(link, (whole, head: string, id: string) => {
    const to = renumbered.get(id);
    return to === undefined ? whole : `${head}${to}`;
  });
}

/**
 * Merges two versions (`ours`, `theirs`) of the day note `date` (YYYY-MM-DD) that both come from
 * `base` ('' when the note is new on both sides). See the file comment. Iterative and about linear
 * in the note's length (`work` counts the diff's steps).
 */
export function mergeDay(
  base: string,
  ours: string,
  theirs: string,
  date: string,
  work: DiffWork = { steps: 0 },
): DayMerge {
  if (theirs === base || theirs === ours) return { text: ours, renumbered: new Map() };
  if (ours === base) return { text: theirs, renumbered: new Map() };
  const [ib, io, it] = [readDayItems(base), readDayItems(ours), readDayItems(theirs)];
  const [mb, mo, mt] = [entriesOf(ib), entriesOf(io), entriesOf(it)];
  const decisions = new Map<string, Decision>();
  const decideId = (id: string) => {
    const d = decide(mb.get(id), mo.get(id), mt.get(id));
    const was = mb.get(id)?.time;
    decisions.set(id, d.kept && was !== undefined && d.kept.time !== was ? { ...d, moved: true } : d);
  };
  // Every id once, ours' first, then theirs', then the base's.
  for (const id of mo.keys()) decideId(id);
  for (const id of mt.keys()) if (!mo.has(id)) decideId(id);
  for (const id of mb.keys()) if (!mo.has(id) && !mt.has(id)) decideId(id);
  const apart = new Set<string>();
  for (const [id, d] of decisions) if (d.theirsApart) apart.add(id);
  // Every token's entry, for ordering and emitting.
  const info = new Map<string, Entry>();
  for (const items of [ib, io])
    for (const x of items) if (x.kind === 'entry') info.set(entryToken(x.entry), x.entry);
  for (const x of it) if (x.kind === 'entry') info.set(entryToken(x.entry, apart.has(x.entry.id)), x.entry);
  const merged = mergeLines(
    tokensOf(ib, new Set()),
    tokensOf(io, new Set()),
    tokensOf(it, apart),
    joinRuns(info),
    work,
  );

  // New ids for theirs' entries apart: numbered on from every mem id either side or the base holds
  // (of any device), plain: the merge is no device's, and it is the same on every clone.
  const fresh = freshBlockIds(
    [...decisions.keys()].filter((id) => blockIdNumber(id) > 0),
    0,
    apart.size,
  );
  const renumbered = new Map<string, string>();
  for (const id of apart) renumbered.set(id, fresh[renumbered.size]!);

  // Emit: each kept entry once, where its first token lands; text lines as merged.
  const out: Placed[] = [];
  // Ids whose kept entry, and whose entry apart, are out.
  const emitted = { kept: new Set<string>(), apart: new Set<string>() };
  let joined = false;
  const emit = (as: 'kept' | 'apart', id: string, entry: () => Entry, origin: Origin) => {
    if (emitted[as].has(id)) return;
    emitted[as].add(id);
    out.push({ kind: 'entry', entry: entry(), origin, joined });
  };
  for (const { line: token, origin, joined: inJoin } of merged) {
    joined = inJoin === true;
    const entry = info.get(token);
    if (!entry) {
      out.push({ kind: 'text', line: token.slice(1), origin, joined });
      continue;
    }
    const d = decisions.get(entry.id)!;
    if (token.startsWith('a'))
      emit('apart', entry.id, () => withId(d.theirsApart!, renumbered.get(entry.id)!), 't');
    else if (d.kept && !d.moved) {
      const kept = d.kept;
      emit(
        'kept',
        entry.id,
        () => kept,
        kept === mt.get(entry.id) && kept !== mo.get(entry.id) ? 't' : origin,
      );
    }
  }
  // A kept entry whose every token the line merge dropped (deleted on one side, edited on the
  // other) goes back by its time.
  const dropped: Entry[] = [];
  for (const [id, d] of decisions) {
    if (d.kept && !emitted.kept.has(id)) dropped.push(d.kept);
    if (d.theirsApart && !emitted.apart.has(id)) dropped.push(withId(d.theirsApart, renumbered.get(id)!));
  }
  const placed = placeByTime(out, dropped);

  sortJoinedRuns(placed);
  const { eol, final } = splitText(ours || theirs || base);
  const lines = placed.flatMap((x) => {
    const raw = x.kind === 'text' ? [x.line] : x.entry.lines;
    return x.origin === 't' ? raw.map((l) => rewriteDayLinks(l, date, renumbered, true)) : raw;
  });
  const text = lines.length === 0 ? '' : `${lines.join(eol)}${final ? eol : ''}`;
  return { text, renumbered };
}

type Placed = Item & { origin: Origin; joined: boolean };

/**
 * Puts in time order each run of entries (no text between) that holds an entry from a region both
 * sides changed: there an entry may stand where the other side's version of it stood. Stable, and
 * runs one side wrote alone keep that side's order, so merge(x, x) = x.
 */
function sortJoinedRuns(out: Placed[]): void {
  for (let i = 0; i < out.length; ) {
    let j = i;
    while (j < out.length && out[j]!.kind === 'entry') j++;
    if (j === i) {
      i++;
      continue;
    }
    const run = out.slice(i, j);
    if (run.some((x) => x.joined)) {
      const time = (x: Placed) => (x.kind === 'entry' ? x.entry.time : '');
      run.sort((a, b) => compare(time(a), time(b)));
      // Written back one by one: `splice(i, n, ...run)` overflows the stack on a long run.
      for (let k = 0; k < run.length; k++) out[i + k] = run[k]!;
    }
    i = j;
  }
}

const timeOrder = (a: Entry, b: Entry) => compare(a.time, b.time);

/**
 * `out` with each of `entries` (in order) put right after the last entry whose time is not later
 * than its own, or before the first entry when there is none, or at the end when `out` holds no
 * entry: what inserting them one at a time does, in one pass (one at a time was quadratic).
 */
function placeByTime(out: Placed[], entries: Entry[]): Placed[] {
  if (entries.length === 0) return out;
  // The entries of `out` by time, with the furthest position among those up to each.
  const byTime = out.flatMap((x, at) => (x.kind === 'entry' ? [{ time: x.entry.time, at }] : []));
  byTime.sort((a, b) => compare(a.time, b.time) || a.at - b.at);
  const furthest: number[] = [];
  for (const [k, x] of byTime.entries()) furthest.push(Math.max(x.at, furthest[k - 1] ?? -1));
  // The slot of each entry: after position `slot` of `out` (-1: before the first entry). An entry
  // placed earlier in the same slot is then before or after it by time; one placed in another
  // slot is never the last not later than it (its own slot's entry would be later than it).
  const slots = new Map<number, Entry[]>();
  for (const entry of entries) {
    let lo = 0;
    let hi = byTime.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byTime[mid]!.time <= entry.time) lo = mid + 1;
      else hi = mid;
    }
    const slot = lo === 0 ? -1 : furthest[lo - 1]!;
    const list = slots.get(slot) ?? [];
    list.push(entry);
    slots.set(slot, list);
  }
  // In a slot, each goes after the last placed not later than it: a stable sort by time.
  for (const list of slots.values()) list.sort(timeOrder);
  const placed = (list: Entry[] | undefined): Placed[] =>
    (list ?? []).map((entry) => ({ kind: 'entry', entry, origin: 't', joined: true }));
  const firstEntry = out.findIndex((x) => x.kind === 'entry');
  const first = firstEntry < 0 ? out.length : firstEntry;
  const result: Placed[] = [];
  for (let at = 0; at <= out.length; at++) {
    if (at === first) for (const x of placed(slots.get(-1))) result.push(x);
    if (at === out.length) break;
    result.push(out[at]!);
    for (const x of placed(slots.get(at))) result.push(x);
  }
  return result;
}
