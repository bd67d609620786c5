import { lstat, unlink } from 'node:fs/promises';
import type { MemConfig } from '../core/config/config.js';
import { MemError } from '../core/errors.js';
import type { WriteCommit } from '../git/commit-write.js';
import { readPendingPlan } from '../git/pending-plan.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { crashPoint } from '../vault/crash-point.js';
import { layoutOf } from '../vault/layout.js';
import { noteNameProblem } from '../vault/links/link-name.js';
import { nameLengthProblem, newNameProblem, twinProblem } from '../vault/links/name-rules.js';
import { basenameOf, foldPath, PathIndex, resolveLink } from '../vault/links/resolve-link.js';
import { parseNote } from '../vault/markdown/parse-note.js';
import { notePath, resolveInVault } from '../vault/paths.js';
import { hashText, readForWrite, writeAtomic } from '../vault/write-note.js';
import { type Author, checkWrite } from '../vault/write-policy.js';
import { type LinkEdit, retargetLink, spliceLinks } from './rewrite-links.js';
import { underPlan } from './write-plan.js';

export interface MoveOptions {
  /** Changes the moved note's text after its links are rewritten (forget sets `status` this way) */
  transform?: (text: string) => string;
  /** Commit message (default: `mem: mv <from> -> <to>`) */
  message?: string;
  /** Runs once every file is read and planned, before the first write (tests edit a file here) */
  beforeWrite?: () => Promise<void>;
  /** Commit the move (default: true); false when the caller commits several writes as one */
  commit?: boolean;
  /** The plan the move's writes belong to (see write-plan.ts; default: `mv <from> -> <to>`) */
  plan?: string;
  /** Who moves (default: the person); a model's tool may not move persona or episode notes (write-policy.ts) */
  author?: Author;
}

export interface MoveResult extends WriteCommit {
  from: string;
  to: string;
  /** Notes whose links were rewritten, by their path after the move, with how many links each */
  rewritten: Array<{ path: string; links: number }>;
  /** Every vault path written or deleted (the old path included) */
  paths: string[];
}

/** One file to write: its text as read (and its hash), and the text to put in its place. */
interface PlannedWrite {
  path: string;
  abs: string;
  before: { text: string; hash: string };
  after: string;
  links: number;
}

/**
 * Checks a destination given by a user and returns it as a vault path ending in `.md`: a name links
 * can spell, not too long, and no twin on disk (see name-rules.ts) other than `except` (the note a
 * move renames, so a change of case alone is allowed).
 */
export async function checkNewNotePath(
  root: string,
  input: string,
  except?: string,
): Promise<{ abs: string; rel: string }> {
  const path = notePath(input);
  if (!path.toLowerCase().endsWith('.md')) {
    throw new MemError('INVALID_PATH', `${JSON.stringify(input)}: a note must be a .md file`);
  }
  // Before the path touches the disk: an overlong name fails lstat with a bare ENAMETOOLONG.
  const length = nameLengthProblem(path.normalize('NFC'));
  if (length) throw new MemError('INVALID_PATH', `${path}: ${length}`);
  const { abs, rel } = await resolveInVault(root, path);
  const problem = noteNameProblem(basenameOf(rel)) ?? (await newNameProblem(root, rel, except));
  if (problem) throw new MemError('INVALID_PATH', `${rel}: ${problem}`);
  return { abs, rel };
}

/** Refuses an existing note whose name is on disk twice, in two Unicode forms (see twinProblem). */
export async function checkNoTwin(root: string, rel: string): Promise<void> {
  const problem = await twinProblem(root, rel);
  if (problem) throw new MemError('INVALID_PATH', `${rel}: ${problem}; nothing was written`);
}

/** A note's text without its frontmatter block. */
function bodyOf(text: string): string {
  return text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/, '');
}

async function exists(abs: string): Promise<boolean> {
  return lstat(abs).then(
    () => true,
    () => false,
  );
}

/** The files links can point to, as the index knows them, with one path taken out and one put in. */
function knownPaths(index: VaultIndex, change: { remove?: string; add: string }): PathIndex {
  const paths = new PathIndex();
  for (const path of index.graph.paths()) if (path !== change.remove) paths.add(path);
  paths.add(change.add);
  return paths;
}

/**
 * Notes whose links may need rewriting: those linking to the note, the note itself (its relative and
 * same-folder links depend on where it sits), and those naming the new file name (it may take them over).
 */
function affectedNotes(index: VaultIndex, from: string, to: string): string[] {
  const found = new Set<string>([from]);
  for (const edge of index.graph.backlinks(from)) found.add(edge.from);
  const newName = foldPath(basenameOf(to));
  const names = new Set([newName, newName.replace(/\.md$/, '')]);
  for (const note of index.notes.values()) {
    if (note.links.some((link) => link.target !== '' && names.has(foldPath(basenameOf(link.target))))) {
      found.add(note.path);
    }
  }
  return [...found];
}

/**
 * Reads one affected note and plans its new text: every link that pointed somewhere before the move
 * and would point elsewhere (or nowhere) after it is rewritten to point where it meant to.
 */
async function planNote(
  root: string,
  path: string,
  move: { from: string; to: string; before: PathIndex; after: PathIndex },
): Promise<PlannedWrite | undefined> {
  const { abs } = await resolveInVault(root, path);
  const read = await readForWrite(abs);
  if (read === undefined) {
    if (path === move.from) throw new MemError('NOT_FOUND', `${path}: no such note in the vault`);
    return undefined;
  }
  const note = parseNote(path, read.text);
  const newPath = path === move.from ? move.to : path;
  const edits: LinkEdit[] = [];
  for (const link of note.links) {
    if (link.target === '') continue; // `[[#H]]` points into the note, wherever it is
    const was = resolveLink(link.target, path, move.before);
    if (was === undefined) continue;
    const dest = was === move.from ? move.to : was;
    if (resolveLink(link.target, newPath, move.after) === dest) continue;
    edits.push({ ...link, replacement: retargetLink(link, newPath, dest, move.after) });
  }
  if (edits.length === 0 && path !== move.from) return undefined;
  return { path, abs, before: read, after: spliceLinks(read.text, edits, path), links: edits.length };
}

/** Puts back what `done` changed, as far as nobody changed it since; errors are left to the caller's error. */
async function rollBack(done: Array<{ abs: string; text: string; written: string; created: boolean }>) {
  for (const step of done.reverse()) {
    try {
      if (step.created) {
        const now = await readForWrite(step.abs);
        if (now?.hash === hashText(step.written)) await unlink(step.abs);
      } else {
        await writeAtomic(step.abs, step.text, { expectedHash: hashText(step.written) });
      }
    } catch {
      // Best effort: a file edited by hand meanwhile is left as it is now.
    }
  }
}

/**
 * When `error` says the note to move is gone and a killed run of this very plan left its record, the
 * move was done but for its commit: commits it (unless the caller commits) and returns its paths.
 */
async function finishMove(
  root: string,
  config: MemConfig,
  error: unknown,
  plan: string,
  message: string,
  commit: boolean,
): Promise<(WriteCommit & { paths: string[] }) | undefined> {
  if (!(error instanceof MemError) || error.code !== 'NOT_FOUND') return undefined;
  const pending = await readPendingPlan(root, plan);
  if (!pending) return undefined;
  if (!commit)
    return { paths: pending.paths, committed: false, code: 'deferred', reason: 'left to the caller' };
  return {
    paths: pending.paths,
    ...(await underPlan(root, config, plan, (steps) => steps.commit([], message))),
  };
}

/**
 * Renames a note and rewrites every link that pointed to it (and the note's own links that would
 * break), under the vault's write lock. Linking notes and the new file are written first, each with
 * compare-and-swap against the text the link offsets came from; the old file is deleted last. A
 * conflict anywhere puts back what was written and stops. One commit holds every touched path.
 */
export async function moveNote(
  root: string,
  config: MemConfig,
  index: VaultIndex,
  from: string,
  to: string,
  options: MoveOptions = {},
): Promise<MoveResult> {
  const target = await checkNewNotePath(root, to, from.normalize('NFC'));
  const planKey = options.plan ?? `mv ${notePath(from)} -> ${target.rel}`;
  const message = options.message ?? `mem: mv ${notePath(from)} -> ${target.rel}`;
  let source: { abs: string; rel: string };
  try {
    source = await resolveInVault(root, from, { mustExist: true });
  } catch (error) {
    // The same move run again after a kill that came once the old file was gone: only the commit is left.
    const finished = await finishMove(root, config, error, planKey, message, options.commit !== false);
    if (!finished) throw error;
    return { from: notePath(from), to: target.rel, rewritten: [], ...finished };
  }
  for (const path of [source.rel, target.rel])
    checkWrite({ author: options.author ?? 'person', action: 'move', path, layout: layoutOf(config) });
  await checkNoTwin(root, source.rel);
  if (!source.rel.toLowerCase().endsWith('.md')) {
    throw new MemError('INVALID_PATH', `${source.rel}: mem moves notes (.md files) only`);
  }
  if (target.rel === source.rel)
    throw new MemError('INVALID_ARGUMENT', `${source.rel}: already at that path`);
  return underPlan(root, config, planKey, async (steps) => {
    // A folder (or anything unreadable) at the target reads as no text and is refused below.
    const existing = await readForWrite(target.abs).catch(() => undefined);
    if (existing === undefined && (await exists(target.abs))) {
      throw new MemError('EXISTS', `${target.rel} already exists; ${source.rel} was not moved`);
    }
    const move = {
      from: source.rel,
      to: target.rel,
      // The source is added in case the index has not seen it yet; its self-links must resolve to it.
      before: knownPaths(index, { add: source.rel }),
      after: knownPaths(index, { remove: source.rel, add: target.rel }),
    };
    const plans: PlannedWrite[] = [];
    for (const path of affectedNotes(index, source.rel, target.rel)) {
      const plan = await planNote(root, path, move);
      if (plan) plans.push(plan);
    }
    const self = plans.find((plan) => plan.path === source.rel);
    if (!self) throw new MemError('NOT_FOUND', `${source.rel}: no such note in the vault`);
    if (options.transform) self.after = options.transform(self.after);
    // A target already there is refused, unless it is this very move left half-done by a crash:
    // the same note body (the frontmatter may differ, e.g. forget's `archived` time).
    if (existing !== undefined && bodyOf(existing.text) !== bodyOf(self.after)) {
      throw new MemError('EXISTS', `${target.rel} already exists; ${source.rel} was not moved`);
    }
    await options.beforeWrite?.();
    const paths = [...plans.filter((plan) => plan !== self).map((plan) => plan.path), target.rel, source.rel];
    await steps.record(paths, message);

    // The new file first, then the links to it, then the old file goes: a crash at any point
    // leaves every link resolving (to the old note or the new one), and a re-run finishes the move.
    const done: Array<{ abs: string; text: string; written: string; created: boolean }> = [];
    try {
      await writeAtomic(target.abs, self.after, { expectedHash: existing?.hash ?? null, label: target.rel });
      done.push({ abs: target.abs, text: existing?.text ?? '', written: self.after, created: !existing });
      for (const plan of plans) {
        if (plan === self) continue;
        await writeAtomic(plan.abs, plan.after, { expectedHash: plan.before.hash, label: plan.path });
        done.push({ abs: plan.abs, text: plan.before.text, written: plan.after, created: false });
      }
      const now = await readForWrite(source.abs);
      if (now?.hash !== self.before.hash) {
        throw new MemError('CONFLICT', `${source.rel} changed on disk since it was read; nothing was moved`);
      }
      await unlink(source.abs);
      crashPoint();
    } catch (error) {
      await rollBack(done);
      throw error;
    }

    const rewritten = plans
      .filter((plan) => plan.links > 0)
      .map((plan) => ({ path: plan.path === source.rel ? target.rel : plan.path, links: plan.links }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const commit =
      options.commit === false
        ? { committed: false, code: 'deferred' as const, reason: 'left to the caller' }
        : await steps.commit(paths, message);
    return { from: source.rel, to: target.rel, rewritten, paths, ...commit };
  });
}
