import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { findFrontmatter } from '../../vault/markdown/parse-markdown.js';
import { USER } from './import-types.js';
import type { IngestTurn } from './ingest.js';

/**
 * The day a journal file is for, from its path: `2024-03-05.md`, `2024_03_05.md`, `20240305.md`,
 * `2024/03/05.md`, `2024/03/2024-03-05.md`, `Journal/2024-03-05 Tuesday.md`… The file name is tried
 * first, then the folders above it; an impossible date (2024-02-30) is no date.
 */
export function journalDay(path: string): string | undefined {
  const parts = path.replace(/\.(md|markdown)$/i, '').split(/[\\/]/);
  const candidates = [parts.at(-1) ?? '', parts.slice(-3).join('/'), parts.slice(-2).join('/')];
  for (const candidate of candidates) {
    const match = /(?:^|\D)((?:19|20)\d{2})[-_./]?(\d{2})[-_./]?(\d{2})(?!\d)/.exec(candidate);
    if (!match) continue;
    const [, y, m, d] = match;
    const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    if (date.getUTCMonth() + 1 === Number(m) && date.getUTCDate() === Number(d)) return `${y}-${m}-${d}`;
  }
  return undefined;
}

/** A leading `09:30` (or `9:30`, `[09:30]`) on an entry: when it was written. */
const LEADING_TIME = /^\[?([01]?\d|2[0-3]):([0-5]\d)\]?\s+(?=\S)/;

/**
 * One journal day's entries: each list item (with its indented continuation lines) and each
 * paragraph is an entry, in the order written; headings, frontmatter and blank lines are not.
 * A leading time (`09:30 …`) gives the entry's time; without one the entry has none (00:00).
 */
export function parseJournalDay(text: string, day: string): IngestTurn[] {
  const front = findFrontmatter(text);
  const body = text.slice(front?.region[1] ?? 0).replace(/^\uFEFF/, '');
  const blocks: string[][] = [];
  let current: string[] | undefined;
  let fence = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (!fence && (line.trim() === '' || /^#{1,6}\s/.test(line))) {
      current = undefined;
      continue;
    }
    const item = !fence && /^\s{0,1}([-*+]|\d+[.)])\s+/.test(line);
    if (item || current === undefined) {
      current = [];
      blocks.push(current);
    }
    current.push(item ? line.replace(/^\s*([-*+]|\d+[.)])\s+/, '') : line.trim());
  }
  return blocks
    .map((lines) => lines.join('\n').trim())
    .filter((t) => t !== '')
    .map((entry) => {
      const time = LEADING_TIME.exec(entry);
      const text = time ? entry.slice(time[0].length) : entry;
      const clock = time ? `${time[1]!.padStart(2, '0')}:${time[2]}` : '00:00';
      return { speaker: USER, text, day, time: clock };
    });
}

/** Markdown files below `dir` (hidden folders such as `.obsidian` and `.git` left out), sorted. */
export async function listMarkdown(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.(md|markdown)$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter(
      (path) =>
        !relative(dir, path)
          .split(/[\\/]/)
          .some((part) => part.startsWith('.')),
    )
    .sort();
}
