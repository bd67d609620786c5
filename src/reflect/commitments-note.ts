// The commitments note (`profile/commitments.md`) as reflect edits it: new lines added once, and a
// pending line's status word changed in place. The line format is compile/commitments.ts's.
import {
  type Commitment,
  commitmentKey,
  formatCommitmentLine,
  parseCommitmentLine,
  parseCommitments,
} from '../compile/commitments.js';
import { addLinesUnderHeading } from '../vault/markdown/add-under-heading.js';
import { outlineOf } from '../vault/markdown/note-outline.js';

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

const COMMITMENTS_SKELETON =
  '---\ntitle: Commitments\ntype: commitments\n---\n# Commitments\n\n' +
  'Promises and plans, one a line: status · due · who · what · the entry it came from. ' +
  'Reflect adds them and marks them done or expired; edit them freely.\n';

/**
 * Adds commitments, leaving out any whose entry, or whose promise for the same day, is already
 * there. One pass for all of a run's: a first run over a year of entries adds thousands.
 */
export function addCommitments(text: string, lines: Commitment[]): string {
  const base = text === '' ? COMMITMENTS_SKELETON : text;
  const known = parseCommitments(base);
  const key = commitmentKey;
  const seen = new Set([...known.map((c) => c.source), ...known.map(key)]);
  const fresh: string[] = [];
  for (const line of lines) {
    if (seen.has(line.source) || seen.has(key(line))) continue;
    seen.add(line.source).add(key(line));
    fresh.push(formatCommitmentLine(line));
  }
  if (fresh.length === 0) return base;
  const eol = eolOf(base);
  if (known.length > 0) return addLinesUnderHeading(base, 'Commitments', [fresh.join(eol)]).text;
  // The first lines start a list of their own, a blank line below the text above them.
  return `${base.trimEnd()}${eol}${eol}${fresh.join(eol)}${eol}`;
}

/** Rewrites the status word of the pending lines `pick` chooses, splicing only that word (and a done link). */
export function restatus(
  text: string,
  pick: (c: NonNullable<ReturnType<typeof parseCommitmentLine>>) => 'done' | 'expired' | undefined,
  doneBy?: string,
): { text: string; changed: number } {
  let out = text;
  let changed = 0;
  // From the last line up, so each splice leaves the offsets of the lines above it as they are.
  for (const l of outlineOf(text).lines.reverse()) {
    const line = text.slice(l.start, l.end);
    const found = l.code ? undefined : parseCommitmentLine(line);
    if (found?.status !== 'pending') continue;
    const status = pick(found);
    if (!status) continue;
    let next = line.replace(/^(\s*[-*]\s+)pending/, `$1${status}`);
    if (status === 'done' && doneBy) next = `${next.trimEnd()} · done ${doneBy}`;
    out = out.slice(0, l.start) + next + out.slice(l.end);
    changed++;
  }
  return { text: out, changed };
}

/** Marks pending commitments due before `today` (`YYYY-MM-DD`, the vault's time zone) expired. */
export function expireCommitments(text: string, today: string): { text: string; changed: number } {
  return restatus(text, (c) => (c.due < today ? 'expired' : undefined));
}
