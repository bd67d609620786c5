import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { type Commitment, parseCommitments } from '../compile/commitments.js';
import { MemError } from '../core/errors.js';
import type { DeriveContent } from '../git/commit-paths.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { rollupPath } from '../time/rollup-period.js';
import { dayOf, isoWithOffset } from '../time/zoned-date.js';
import { commitmentsPath } from '../vault/layout.js';
import { addLinesUnderHeading } from '../vault/markdown/add-under-heading.js';
import { escapeComments } from '../vault/markdown/comments.js';
import { setFrontmatterKeys } from '../vault/markdown/edit-frontmatter.js';
import { outlineOf } from '../vault/markdown/note-outline.js';
import { findOnDisk } from '../vault/paths.js';
import { readForWrite, updateFile, writeAtomic } from '../vault/write-note.js';
import { redactSecrets } from '../write/redact/redact.js';
import { addCommitments, expireCommitments, restatus } from './commitments-note.js';
import type { Operation } from './operations.js';
import type { Rejected } from './validate-operations.js';

/** One file's planned change: the operations that touch it, applied in order to its current text. */
export interface FileChange {
  create: boolean;
  steps: Array<{ index: number; apply: (text: string) => string }>;
}

/** An operation that cannot apply to the note as it now is (a line to replace was edited away). */
class Skip extends Error {}

/** Model text as it is written into a note: secrets redacted, `%%` kept from opening a comment. */
const clean = (value: string) => escapeComments(redactSecrets(value).text);

function newNote(frontmatter: Record<string, unknown>, title: string, body: string): string {
  // Frontmatter is literal (no comments there): only the redaction applies.
  const data = Object.fromEntries(
    Object.entries({ ...frontmatter, title: redactSecrets(title).text }).filter(([, v]) => v !== undefined),
  );
  return `---\n${stringify(data).trimEnd()}\n---\n# ${clean(title)}\n\n${clean(body).trim()}\n`;
}

/** `text` with `[start, end)` replaced by `by`: every other byte is left as it is. */
function splice(text: string, start: number, end: number, by: string): string {
  return text.slice(0, start) + by + text.slice(end);
}

/**
 * Inserts `line` at the end of the section under `heading` (any level), or in a new `## heading` at
 * the end, unless the section already states it (vault/markdown/add-under-heading.ts).
 */
export function addUnderHeading(text: string, heading: string, line: string): string {
  return addLinesUnderHeading(text, heading, [line]).text;
}

/** Replaces one fact line of the body (never a heading, frontmatter or code line). */
function replaceLine(text: string, old: string, line: string): string {
  const norm = (s: string) => s.trim().replace(/^[-*]\s+/, '');
  const found = outlineOf(text).lines.find((l) => {
    const current = norm(text.slice(l.start, l.end));
    return !l.code && !l.heading && current !== '' && current === norm(old);
  });
  if (!found) throw new Skip(`the line to replace is not in the note (edited since?): ${old}`);
  return splice(text, found.start, found.end, line);
}

function profileSkeleton(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
  return `---\ntitle: ${JSON.stringify(name)}\n---\n# ${name}\n`;
}

/** What an operation's steps are planned with: where they go, the run's time and links. */
interface Planner {
  index: VaultIndex;
  /** The run's moment, as the notes record it */
  stamp: string;
  /** The run's day in the vault's time zone */
  today: string;
  /** Adds a step to a file's change; the file's first step says whether the change creates it */
  add: (path: string, create: boolean, step: FileChange['steps'][number]) => void;
  linkTo: (path: string) => string;
  /** The commitments the run adds: one step writes them all (see planAddCommitment) */
  added?: Commitment[];
}

/** The steps of one kind of operation, the `i`th of the answer. */
type PlanSteps<K extends Operation['op']> = (
  op: Extract<Operation, { op: K }>,
  i: number,
  planner: Planner,
) => void;

const planInsight: PlanSteps<'create_insight'> = (op, i, { add, stamp }) => {
  add(op.path, true, {
    index: i,
    apply: () =>
      newNote(
        {
          id: randomBytes(6).toString('hex'),
          title: op.title,
          created: stamp,
          updated: stamp,
          confidence: op.confidence,
          importance: op.importance,
          tags: op.tags,
          sources: op.sources,
        },
        op.title,
        op.body,
      ),
  });
};

const planProfileFact: PlanSteps<'update_profile_fact'> = (op, i, { add }) => {
  const line = clean(op.fact.startsWith('- ') ? op.fact : `- ${op.fact}`);
  add(op.path, false, {
    index: i,
    apply: (text) => {
      const base = text === '' ? profileSkeleton(op.path) : text;
      if (op.replaces) return replaceLine(base, op.replaces, line);
      return addUnderHeading(base, op.heading ?? 'Facts', line);
    },
  });
};

const planSupersede: PlanSteps<'supersede_fact'> = (op, i, { add, stamp, linkTo }) => {
  const newLink = linkTo(op.new.path);
  add(op.new.path, true, {
    index: i,
    apply: () =>
      newNote(
        {
          id: randomBytes(6).toString('hex'),
          title: op.new.title,
          created: stamp,
          updated: stamp,
          status: 'active',
          supersedes: linkTo(op.old),
          valid_from: op.valid_from,
          confidence: op.new.confidence,
          importance: op.new.importance,
          sources: op.sources,
        },
        op.new.title,
        op.new.body,
      ),
  });
  add(op.old, false, {
    index: i,
    apply: (text) =>
      setFrontmatterKeys(text, {
        status: 'superseded',
        superseded_by: newLink,
        ...(op.valid_to ? { valid_to: op.valid_to } : {}),
        updated: stamp,
      }),
  });
};

const planLink: PlanSteps<'add_link'> = (op, i, { add, linkTo }) => {
  add(op.from, false, {
    index: i,
    apply: (text) => {
      const target = linkTo(op.to);
      const name = target.slice(2, -2).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`\\[\\[${name}(?:\\.md)?(?:[|#\\]\\\\])`, 'i').test(text)) return text;
      return addUnderHeading(text, 'Related', `- ${target}`);
    },
  });
};

const planRollup: PlanSteps<'write_rollup'> = (op, i, { add, stamp, index }) => {
  add(rollupPath(op.period, index.layout.folders.episodes) ?? op.period, true, {
    index: i,
    apply: () =>
      newNote(
        { type: 'rollup', period: op.period, title: op.title, created: stamp, sources: op.sources },
        op.title,
        op.body,
      ),
  });
};

const planMarkReflected: PlanSteps<'mark_reflected'> = (op, i, { add, stamp }) => {
  add(op.path, false, { index: i, apply: (text) => setFrontmatterKeys(text, { reflected: stamp }) });
};

const planAddCommitment: PlanSteps<'add_commitment'> = (op, i, planner) => {
  // One step for all the run's additions, placed where the first one is, so a
  // complete_commitment after it in the answer finds the line.
  if (!planner.added) {
    const lines: Commitment[] = [];
    planner.added = lines;
    planner.add(commitmentsPath(planner.index.layout), false, {
      index: i,
      apply: (text) => addCommitments(text, lines),
    });
  }
  planner.added.push({
    // One found after its day (a first run over old entries) is written as expired at once.
    status: op.due < planner.today ? 'expired' : 'pending',
    due: op.due,
    who: clean(op.who),
    what: clean(op.what),
    source: op.sources[0] ?? '',
  });
};

const planCompleteCommitment: PlanSteps<'complete_commitment'> = (op, i, { add, index }) => {
  add(commitmentsPath(index.layout), false, {
    index: i,
    apply: (text) => {
      const result = restatus(text, (c) => (c.source === op.commitment ? 'done' : undefined), op.sources[0]);
      if (result.changed === 0) throw new Skip(`no pending commitment from ${op.commitment} (edited since?)`);
      return result.text;
    },
  });
};

const planMerge: PlanSteps<'merge_insights'> = (op, i, { add, stamp, linkTo, index }) => {
  // The duplicate is kept, marked and linked, as for any superseded fact; its evidence moves
  // to the note that stays, so no citation is lost with it.
  const keepSources = index.notes.get(op.keep)?.frontmatter['sources'];
  const dupSources = index.notes.get(op.duplicate)?.frontmatter['sources'];
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  const union = [...new Set([...list(keepSources), ...list(dupSources)])];
  add(op.duplicate, false, {
    index: i,
    apply: (text) =>
      setFrontmatterKeys(
        text,
        { status: 'superseded', superseded_by: linkTo(op.keep), updated: stamp },
        { label: op.duplicate },
      ),
  });
  add(op.keep, false, {
    index: i,
    apply: (text) =>
      setFrontmatterKeys(
        text,
        { ...(union.length > list(keepSources).length ? { sources: union } : {}), updated: stamp },
        { label: op.keep },
      ),
  });
};

/** Each kind of operation's steps: a kind the schema gains without them here does not compile. */
const PLAN_STEPS: { [K in Operation['op']]: PlanSteps<K> } = {
  create_insight: planInsight,
  update_profile_fact: planProfileFact,
  supersede_fact: planSupersede,
  add_link: planLink,
  write_rollup: planRollup,
  mark_reflected: planMarkReflected,
  add_commitment: planAddCommitment,
  complete_commitment: planCompleteCommitment,
  merge_insights: planMerge,
};

/** Turns validated operations into per-file changes. Nothing is read or written here. */
export function planChanges(
  operations: Operation[],
  index: VaultIndex,
  now: Date,
  timeZone: string,
): Map<string, FileChange> {
  const plan = new Map<string, FileChange>();
  const planner: Planner = {
    index,
    stamp: isoWithOffset(now, timeZone),
    today: dayOf(now, timeZone),
    add: (path, create, step) => {
      const change = plan.get(path) ?? { create, steps: [] };
      change.steps.push(step);
      plan.set(path, change);
    },
    linkTo: (path) => `[[${index.linkText(path)}]]`,
  };
  operations.forEach((op, i) => {
    const planSteps = PLAN_STEPS[op.op] as (op: Operation, i: number, planner: Planner) => void;
    planSteps(op, i, planner);
  });
  return plan;
}

/** An index for steps that no operation asked for (expiry): never reported as skipped. */
export const ENGINE_STEP = -1;

/**
 * Adds the expiry of passed commitments to a plan: a due date that passed in the vault's time zone
 * is written as `expired` by the next run, whatever else the run does. Returns how many expire.
 */
export function planExpiry(plan: Map<string, FileChange>, index: VaultIndex, today: string): number {
  const path = commitmentsPath(index.layout);
  const note = index.notes.get(path);
  const passed = (note?.sections ?? [])
    .flatMap((section) => parseCommitments(section.text))
    .filter((c) => c.status === 'pending' && c.due < today).length;
  if (passed === 0) return 0;
  const change = plan.get(path) ?? { create: false, steps: [] };
  change.steps.push({ index: ENGINE_STEP, apply: (text) => expireCommitments(text, today).text });
  plan.set(path, change);
  return passed;
}

/** Runs a file's steps over `text`; a step that cannot apply is skipped and reported. */
function runSteps(change: FileChange, text: string, skipped: Map<number, string>): string {
  let current = text;
  for (const step of change.steps) {
    // An operation whose new note could not be created must not change anything else either
    // (an old fact marked superseded by a note that does not exist).
    if (skipped.has(step.index)) continue;
    try {
      current = step.apply(current);
    } catch (error) {
      if (!(error instanceof Skip) && !(error instanceof MemError)) throw error;
      skipped.set(step.index, (error as Error).message);
    }
  }
  return current;
}

/**
 * What to commit for a note the plan edited: its committed text with the same steps (those skipped
 * on disk skipped again), so a person's uncommitted edit (a diary line under their own heading)
 * never rides in mem's commit. A note git does not have yet, or one whose committed text the steps
 * no longer fit, is committed as written.
 */
function ownChange(change: FileChange, skipped: Map<number, string>, written: string): DeriveContent {
  return (committed) => {
    if (committed === undefined) return written;
    try {
      return runSteps(change, committed, new Map(skipped));
    } catch {
      return written;
    }
  };
}

/** New notes first, so a failed creation can hold back the edits that depend on it. */
function creationsFirst(plan: Map<string, FileChange>): Array<[string, FileChange]> {
  return [...plan].sort(([, a], [, b]) => Number(b.create) - Number(a.create));
}

export interface PlannedFile {
  path: string;
  before: string | undefined;
  after: string;
}

/**
 * What the plan would write, computed on the notes as they are now (for --dry-run), or as `read`
 * gives them (--review reads them as the last commit has them).
 */
export async function previewChanges(
  root: string,
  plan: Map<string, FileChange>,
  read: (path: string) => Promise<string | undefined> = async (path) =>
    (await readForWrite(await findOnDisk(root, path)))?.text,
): Promise<{ files: PlannedFile[]; skipped: Rejected[] }> {
  const skipped = new Map<number, string>();
  const files: PlannedFile[] = [];
  for (const [path, change] of plan) {
    const before = await read(path);
    if (change.create && before !== undefined) {
      for (const step of change.steps)
        skipped.set(step.index, `${path} already exists; nothing is overwritten`);
      continue;
    }
    files.push({ path, before, after: runSteps(change, before ?? '', skipped) });
  }
  return { files, skipped: [...skipped].map(([index, reason]) => ({ index, op: undefined, reason })) };
}

/**
 * What the plan would change: previewChanges without the files it would leave as they are (apply
 * writes none of them either). The one preview of dry runs and review branches, online or not.
 */
export async function previewWrites(
  root: string,
  plan: Map<string, FileChange>,
  read?: (path: string) => Promise<string | undefined>,
): Promise<{ files: PlannedFile[]; skipped: Rejected[] }> {
  const { files, skipped } = await previewChanges(root, plan, read);
  return { files: files.filter((f) => f.before !== f.after), skipped };
}

/**
 * Writes the plan: new notes only where nothing exists yet, edits through compare-and-swap on the
 * note as it is at write time, so a hand edit made while the model was thinking is kept. A file
 * whose write fails (a name the disk refuses, a full disk) has its operations reported as skipped
 * and the rest goes on: what was written is returned, so the caller commits it rather than leaving
 * half a plan on disk and out of git.
 */
export async function applyChanges(
  root: string,
  plan: Map<string, FileChange>,
): Promise<{ written: string[]; skipped: Rejected[]; derived: Map<string, DeriveContent> }> {
  const skipped = new Map<number, string>();
  const written: string[] = [];
  const derived = new Map<string, DeriveContent>();
  for (const [path, change] of creationsFirst(plan)) {
    const abs = await findOnDisk(root, path);
    if (change.create) {
      try {
        await writeAtomic(abs, runSteps(change, '', skipped), { expectedHash: null, label: path });
        written.push(path);
      } catch (error) {
        for (const step of change.steps) skipped.set(step.index, `${path}: ${(error as Error).message}`);
      }
      continue;
    }
    try {
      let after = '';
      const result = await updateFile(
        abs,
        (current) => {
          after = runSteps(change, current ?? '', skipped);
          return after;
        },
        { label: path },
      );
      if (result.changed) {
        written.push(path);
        derived.set(path, ownChange(change, new Map(skipped), after));
      }
    } catch (error) {
      for (const step of change.steps) skipped.set(step.index, `${path}: ${(error as Error).message}`);
    }
  }
  return {
    written,
    skipped: [...skipped].map(([index, reason]) => ({ index, op: undefined, reason })),
    derived,
  };
}
