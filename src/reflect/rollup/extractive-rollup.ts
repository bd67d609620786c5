// A rollup without a model: the period's most important entries, quoted with their citations, so
// a vault that never talks to a model still folds. Chosen by importance, link centrality, recency
// within the period and substance; shown in time order, ending with a one-line capsule.

import { periodDays } from '../../time/calendar-day.js';
import { MONTH_NAMES } from '../../time/number-words.js';
import type { RollupLevel } from '../../time/rollup-period.js';
import { importanceOf } from '../../vault/section-facts.js';
import type { RollupEntry, RollupInput } from './rollup-input.js';

export interface RollupText {
  title: string;
  /** Markdown below the title heading, ending with the `## Capsule` section */
  body: string;
  capsule: string;
}

/** Entries quoted per level: enough to recall the period by, few enough to read in a minute. */
const HIGHLIGHTS: Record<RollupLevel, number> = { week: 8, month: 10, quarter: 12, year: 16 };
/** At most this many highlights from one day, so one long evening does not stand for a whole week. */
const PER_DAY = 2;
/** Characters of an entry quoted; longer ones are cut at a word. */
const QUOTE_CHARS = 220;
/** An entry this long or longer counts as full substance; "ok" and "Nice." say little. */
const SUBSTANTIAL_CHARS = 80;

const WIKI_LINK = /\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]/g;

/** `Week 47, 2026`, `November 2026`, `2026 Q4`, `2026` */
export function rollupTitle(period: string): string {
  const week = /^(\d{4})-W(\d{2})$/.exec(period);
  if (week) return `Week ${Number(week[2])}, ${week[1]}`;
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month) return `${MONTH_NAMES[Number(month[2]) - 1]} ${month[1]}`;
  const quarter = /^(\d{4})-(Q[1-4])$/.exec(period);
  return quarter ? `${quarter[1]} ${quarter[2]}` : period;
}

const flat = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const space = head.lastIndexOf(' ');
  // A wiki link cut in half would leave `[[Kev…` in the note: cut before it instead.
  let end = space > max / 2 ? space : max;
  const open = head.lastIndexOf('[[', end);
  if (open >= 0 && head.indexOf(']]', open) < 0) end = open;
  return `${head.slice(0, end).trimEnd()}…`;
}

/** Scores each entry 0..1: importance, centrality (links out, citations in), recency, substance. */
function scoreEntries(input: RollupInput): Map<RollupEntry, number> {
  const centrality = (e: RollupEntry) => (flat(e.section.text).match(WIKI_LINK)?.length ?? 0) + 2 * e.citedBy;
  const most = Math.max(1, ...input.entries.map(centrality));
  const span = Math.max(1, Date.parse(input.days.to) - Date.parse(input.days.from));
  const scores = new Map<RollupEntry, number>();
  for (const entry of input.entries) {
    const recency = (Date.parse(entry.section.date ?? input.days.from) - Date.parse(input.days.from)) / span;
    const substance = Math.min(1, flat(entry.section.text).length / SUBSTANTIAL_CHARS);
    scores.set(
      entry,
      0.3 * importanceOf(entry.note) +
        0.35 * (Math.log1p(centrality(entry)) / Math.log1p(most)) +
        0.15 * recency +
        0.2 * substance,
    );
  }
  return scores;
}

/**
 * The best entries, at most PER_DAY from one day, in time order (entries come oldest first), and
 * the best of all.
 */
export function pickHighlights(input: RollupInput): { highlights: RollupEntry[]; top?: RollupEntry } {
  const scores = scoreEntries(input);
  const perDay = new Map<string, number>();
  const picked = new Set<RollupEntry>();
  const ranked = [...input.entries].sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0));
  for (const entry of ranked) {
    if (picked.size >= HIGHLIGHTS[input.level]) break;
    const day = entry.section.date ?? '';
    if ((perDay.get(day) ?? 0) >= PER_DAY) continue;
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    picked.add(entry);
  }
  return { highlights: input.entries.filter((e) => picked.has(e)), top: [...picked][0] };
}

/** The notes the highlights link to most, as wiki links: what the period was about. */
function topics(entries: RollupEntry[], count: number): string[] {
  const seen = new Map<string, number>();
  for (const entry of entries)
    for (const match of flat(entry.section.text).matchAll(WIKI_LINK)) {
      const name = (match[1] ?? '').trim();
      if (name) seen.set(name, (seen.get(name) ?? 0) + 1);
    }
  return [...seen]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([name]) => `[[${name}]]`);
}

function quote(entry: RollupEntry): string {
  const when = [entry.section.date, entry.section.time].filter(Boolean).join(' ');
  const who = entry.section.speaker ? ` **${entry.section.speaker}:**` : '';
  return `- ${when}${who} ${cut(flat(entry.section.text), QUOTE_CHARS)} ${entry.cite}`;
}

const PARTS_HEADING: Record<RollupLevel, string> = {
  week: 'Days',
  month: 'Weeks and days',
  quarter: 'Months and days',
  year: 'Quarters and days',
};

/** The extractive rollup of a period: highlights, the parts it folds, and a capsule line. */
export function extractiveRollup(input: RollupInput): RollupText {
  const { highlights, top } = pickHighlights(input);
  const days = new Set(input.entries.map((e) => e.section.date)).size;
  const about = topics(highlights, 3);
  const lead = top ? cut(flat(top.section.text).replace(/^\(event\)\s*/, ''), 120) : '';
  const range = periodDays(input.period);
  const capsule = flat(
    `${input.period}${range ? ` (${range.from} to ${range.to})` : ''}: ${input.entries.length} ${
      input.entries.length === 1 ? 'entry' : 'entries'
    } over ${days} ${days === 1 ? 'day' : 'days'}${about.length > 0 ? `, most about ${about.join(', ')}` : ''}.${
      lead ? ` ${lead}` : ''
    }`,
  );
  const parts = input.parts.map(
    (p) => `- ${p.cite}${p.capsule ? ` — ${cut(flat(p.capsule), QUOTE_CHARS)}` : ''}`,
  );
  const body = [
    '## Highlights',
    '',
    ...(highlights.length > 0 ? highlights.map(quote) : ['- (no entries)']),
    '',
    `## ${PARTS_HEADING[input.level]}`,
    '',
    ...parts,
    '',
    '## Capsule',
    '',
    capsule,
    '',
  ].join('\n');
  return { title: rollupTitle(input.period), body, capsule };
}
