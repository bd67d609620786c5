// The text of a rollup note, and the stamp that tells mem's own rollup from a hand-edited one:
// `mem_hash` is the sha256 of the note as mem wrote it, without that line. A note whose text no
// longer matches it was edited (or written by hand) and is never regenerated over.

import { stringify } from 'yaml';
import { escapeComments } from '../../vault/markdown/comments.js';
import { hashText } from '../../vault/write-note.js';
import type { RollupText } from './extractive-rollup.js';

/** The frontmatter key of the stamp */
export const HASH_KEY = 'mem_hash';
const HASH_LINE = new RegExp(`^${HASH_KEY}: ([0-9a-f]{16})\\r?\\n`, 'm');

export interface RollupMeta {
  period: string;
  /** `[[2026-W45]]`, `[[2026-11-01]]`: the parts it folds */
  sources: string[];
  /** ISO 8601 with offset */
  created: string;
  /** `extractive` or `llm:<model>` */
  generator: string;
}

const stamp = (text: string) => hashText(text).slice(0, 16);

/** The whole note: frontmatter (type, period, title, created, sources, generator, stamp), title, body. */
export function rollupNote(meta: RollupMeta, text: RollupText): string {
  const frontmatter = stringify({
    type: 'rollup',
    // Quoted, so `2026` stays the period name and never reads back as a number.
    period: meta.period,
    title: text.title,
    created: meta.created,
    generator: meta.generator,
    sources: meta.sources,
  }).trimEnd();
  const unstamped = `---\n${frontmatter}\n---\n# ${escapeComments(text.title)}\n\n${text.body.trim()}\n`;
  const head = `---\n${frontmatter}\n`;
  return `${head}${HASH_KEY}: ${stamp(unstamped)}\n${unstamped.slice(head.length)}`;
}

/** True when `text` is exactly what mem wrote: its stamp matches the rest of it. */
export function isUntouched(text: string): boolean {
  const match = HASH_LINE.exec(text);
  if (!match) return false;
  return stamp(text.slice(0, match.index) + text.slice(match.index + match[0].length)) === match[1];
}
