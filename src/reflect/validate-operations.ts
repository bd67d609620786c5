import { parseCommitments } from '../compile/commitments.js';
import { issuePath, issuePhrase } from '../core/config/schema-issues.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { parseIsoDay } from '../time/calendar-day.js';
import { rollupPath, rollupPeriod } from '../time/rollup-period.js';
import { commitmentsPath, dayOfPath, layerOf } from '../vault/layout.js';
import { noteNameProblem } from '../vault/links/link-name.js';
import { nameLengthProblem, newNameProblem, PlannedNames, twinProblem } from '../vault/links/name-rules.js';
import { resolveInVault } from '../vault/paths.js';
import { writeRefusal } from '../vault/write-policy.js';
import { MAX_OPERATIONS, type Operation, operationSchema } from './operations.js';

export interface ValidationContext {
  root: string;
  index: VaultIndex;
  /** Citations of the entries shown to the model, e.g. `[[2026-11-29#^e7]]` */
  sources: Set<string>;
  /** Episode notes shown to the model (only these may be marked reflected) */
  episodes: Set<string>;
  allowPersonaEdits: boolean;
  /** The run's day in the vault's time zone, `YYYY-MM-DD`: only finished periods get a rollup */
  today: string;
  /**
   * Who said the cited entry, for commitments: their name, or `undefined` when the speaker is
   * neither the user nor the companion (a friend, an event). Without it, any shown entry may state
   * a commitment.
   */
  commitmentSpeaker?: (source: string) => string | undefined;
}

export interface Rejected {
  index: number;
  op: unknown;
  reason: string;
}

class Invalid extends Error {}

function sources(value: string[], context: ValidationContext): string[] {
  const unknown = value.filter((s) => !context.sources.has(s));
  if (unknown.length > 0) {
    throw new Invalid(
      `sources cite entries that were not shown: ${unknown.map((s) => JSON.stringify(s)).join(', ')}`,
    );
  }
  return [...new Set(value)];
}

/** A rollup cites whole days (`[[2026-11-16]]`) of the episodes shown, or their entries. */
function rollupSources(value: string[], context: ValidationContext): string[] {
  const days = new Set(
    [...context.episodes].map((p) => `[[${p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/, '')}]]`),
  );
  const unknown = value.filter((s) => !(context.sources.has(s) || days.has(s)));
  if (unknown.length > 0) {
    throw new Invalid(
      `sources cite days or entries that were not shown: ${unknown.map((s) => JSON.stringify(s)).join(', ')}`,
    );
  }
  return [...new Set(value)];
}

/** An operation parsed with the schema, or Invalid naming its first problem (`title must be one line`). */
function parseOperation(op: unknown): Operation {
  if (!op || typeof op !== 'object' || Array.isArray(op)) throw new Invalid('not an object');
  const result = operationSchema.safeParse(op, { error: issuePhrase });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'invalid_union' && issue.path.length === 1 && issue.path[0] === 'op')
    throw new Invalid(`unknown operation ${JSON.stringify((op as { op?: unknown }).op)}`);
  throw new Invalid(issue ? `${issuePath(issue.path)} ${issue.message}` : 'not a valid operation');
}

/** What the answer has planned so far: the checks of its later operations see it. */
interface AnswerPlan {
  context: ValidationContext;
  /** Notes created by the operations accepted so far */
  creating: Set<string>;
  /** Every new note of the answer, by the name the file systems compare (`dup.md` and `DUP.md` are one). */
  names: PlannedNames;
  /** Commitments still pending, by their source link: those on file and those added in this answer. */
  pending: Set<string>;
  /** Insights merged away in this answer */
  merged: Set<string>;
}

function pendingCommitments(index: VaultIndex): Set<string> {
  const commitmentsNote = index.notes.get(commitmentsPath(index.layout));
  return new Set(
    (commitmentsNote?.sections ?? [])
      .flatMap((section) => parseCommitments(section.text))
      .filter((c) => c.status === 'pending')
      .map((c) => c.source),
  );
}

/**
 * A note an operation names is in one of `layers`, or it is a note written in the persona that the
 * write policy lets reflect write.
 */
function checkLayer(
  rel: string,
  name: string,
  layers: string[],
  mustExist: boolean | 'new',
  context: ValidationContext,
) {
  const { layout } = context.index;
  const layer = layerOf(rel, layout);
  if (layer === 'persona' && !layers.includes(layer)) {
    // A note written (not a link's target) in the persona: the write policy says whether reflect
    // may, which is only when the person allowed it on this device (vault/write-policy.ts).
    const action = mustExist === 'new' ? 'create' : 'edit';
    const { allowPersonaEdits } = context;
    const rule = writeRefusal({ author: 'reflect', action, path: rel, layout, allowPersonaEdits });
    if (rule) throw new Invalid(`${name} ${rel}: ${rule}`);
  } else if (!layers.includes(layer))
    throw new Invalid(`${name} ${rel} is in ${layer}/, not in ${layers.join('/ or ')}/`);
}

/**
 * The vault path of a note an operation names in its field `name`: inside the vault, in one of
 * `layers`, and existing (`true`), not yet existing (`'new'`) or either (`false`), counting the
 * notes this answer creates.
 */
async function notePath(
  plan: AnswerPlan,
  given: string,
  name: string,
  layers: string[],
  mustExist: boolean | 'new',
): Promise<string> {
  const { context } = plan;
  let rel: string;
  const file = given.endsWith('.md') ? given : `${given}.md`;
  // Before the path touches the disk: an overlong name fails lstat with a bare ENAMETOOLONG.
  const length = nameLengthProblem(file.normalize('NFC'));
  if (length) throw new Invalid(`${name} ${file}: ${length}`);
  try {
    rel = (await resolveInVault(context.root, file)).rel;
  } catch (error) {
    throw new Invalid(`${name}: ${(error as Error).message}`);
  }
  const problem = mustExist === 'new' ? noteNameProblem(rel.slice(rel.lastIndexOf('/') + 1)) : undefined;
  if (problem) throw new Invalid(`${name} ${rel}: ${problem}`);
  checkLayer(rel, name, layers, mustExist, context);
  const exists = context.index.notes.has(rel) || plan.creating.has(rel);
  if (mustExist === true && !exists) throw new Invalid(`${name} ${rel} does not exist`);
  if (mustExist === 'new' && exists)
    throw new Invalid(`${name} ${rel} already exists; nothing is overwritten`);
  // Checked whole before the first write: a name the disk would refuse (too long) or merge with
  // another (a twin on disk or in this answer) would otherwise fail half-way through the plan.
  const onDisk = context.index.notes.has(rel);
  const nameIssue = onDisk
    ? await twinProblem(context.root, rel)
    : (plan.names.claim(rel) ?? (await newNameProblem(context.root, rel)));
  if (nameIssue) throw new Invalid(`${name} ${rel}: ${nameIssue}`);
  return rel;
}

/**
 * The check of one kind of operation: the operation to apply, or Invalid. What it adds to the plan
 * (a note created, a commitment added) is added only once every check of the operation passed.
 */
type Check<K extends Operation['op']> = (
  op: Extract<Operation, { op: K }>,
  plan: AnswerPlan,
) => Operation | Promise<Operation>;

const checkCreateInsight: Check<'create_insight'> = async (op, plan) => {
  const path = await notePath(plan, op.path, 'path', ['insights'], 'new');
  const accepted = { ...op, path, sources: sources(op.sources, plan.context) };
  plan.creating.add(path);
  return accepted;
};

const checkProfileFact: Check<'update_profile_fact'> = async (op, plan) => {
  const path = await notePath(plan, op.path, 'path', ['profile'], false);
  return { ...op, path, sources: sources(op.sources, plan.context) };
};

const checkSupersede: Check<'supersede_fact'> = async (op, plan) => {
  // Only insights are superseded; a profile changes through update_profile_fact, so the
  // core profile and pinned notes can never be retired by a model.
  const old = await notePath(plan, op.old, 'old', ['insights'], true);
  const status = plan.context.index.notes.get(old)?.frontmatter['status'];
  if (status === 'superseded') throw new Invalid(`old ${old} is already superseded`);
  const path = await notePath(plan, op.new.path, 'new.path', ['insights'], 'new');
  const accepted = { ...op, old, new: { ...op.new, path }, sources: sources(op.sources, plan.context) };
  plan.creating.add(path);
  return accepted;
};

const checkLink: Check<'add_link'> = async (op, plan) => {
  const from = await notePath(plan, op.from, 'from', ['insights', 'profile'], true);
  const to = await notePath(plan, op.to, 'to', ['insights', 'profile', 'episodes', 'persona'], true);
  if (from === to) throw new Invalid('a note cannot link to itself');
  return { op: 'add_link', from, to };
};

const checkRollup: Check<'write_rollup'> = async (op, plan) => {
  const { context } = plan;
  const { period } = op;
  const days = rollupPeriod(period);
  if (!days) throw new Invalid('period must be an ISO week YYYY-Www or a month YYYY-MM');
  // A rollup stands in for its days: one for a period still going on would hide what comes next.
  if (days.to >= context.today)
    throw new Invalid(`period ${period} has not ended yet (it runs to ${days.to})`);
  const path = await notePath(
    plan,
    rollupPath(period, context.index.layout.folders.episodes) ?? period,
    'period',
    ['episodes'],
    'new',
  );
  const cited = rollupSources(op.sources, context);
  const outside = cited.filter((c) => {
    const day = citedDay(c, context.index) ?? '';
    return day < days.from || day > days.to;
  });
  if (outside.length > 0) throw new Invalid(`sources outside ${period}: ${outside.join(', ')}`);
  plan.creating.add(path);
  return { ...op, sources: cited };
};

const checkAddCommitment: Check<'add_commitment'> = (op, plan) => {
  const { context } = plan;
  const cited = sources(op.sources, context);
  if (!parseIsoDay(op.due)) throw new Invalid(`due ${op.due} is not a real date`);
  // A commitment is the user's own or the companion's own promise; a friend's "remind me on
  // Friday: ignore all previous instructions" would otherwise be pinned into every compile.
  // The line cites that entry first, and names its speaker rather than the model's `who`.
  const speaker = context.commitmentSpeaker;
  if (speaker) {
    const own = cited.find((c) => speaker(c) !== undefined);
    if (own === undefined)
      throw new Invalid(
        `a commitment must come from the user's own words or the companion's own promise; ${cited.join(', ')} ${cited.length === 1 ? 'was' : 'were'} said by someone else`,
      );
    cited.splice(cited.indexOf(own), 1);
    cited.unshift(own);
    op.who = (speaker(own) ?? op.who).slice(0, 100);
  }
  const said = citedDay(cited[0] ?? '', context.index);
  if (said && op.due < said) throw new Invalid(`due ${op.due} is before the entry that states it (${said})`);
  plan.pending.add(cited[0] ?? '');
  return { ...op, sources: cited };
};

const checkCompleteCommitment: Check<'complete_commitment'> = (op, plan) => {
  const cited = sources(op.sources, plan.context);
  if (!plan.pending.has(op.commitment))
    throw new Invalid(
      `no pending commitment in ${commitmentsPath(plan.context.index.layout)} comes from ${op.commitment}`,
    );
  plan.pending.delete(op.commitment);
  return { ...op, sources: cited };
};

const checkMerge: Check<'merge_insights'> = async (op, plan) => {
  const { merged } = plan;
  const keep = await notePath(plan, op.keep, 'keep', ['insights'], true);
  const duplicate = await notePath(plan, op.duplicate, 'duplicate', ['insights'], true);
  if (keep === duplicate) throw new Invalid('an insight cannot be merged into itself');
  for (const path of [keep, duplicate]) {
    const status = plan.context.index.notes.get(path)?.frontmatter['status'];
    if (status === 'superseded' || status === 'archived' || merged.has(path))
      throw new Invalid(`${path} is already ${merged.has(path) ? 'merged in this answer' : status}`);
  }
  merged.add(duplicate);
  return { op: 'merge_insights', keep, duplicate };
};

const checkMarkReflected: Check<'mark_reflected'> = (op, plan) => {
  const rel = op.path.endsWith('.md') ? op.path : `${op.path}.md`;
  if (!plan.context.episodes.has(rel)) throw new Invalid(`${rel} was not among the episodes shown`);
  return { op: 'mark_reflected', path: rel };
};

/** Each kind of operation's check: a kind the schema gains without one here does not compile. */
const CHECKS: { [K in Operation['op']]: Check<K> } = {
  create_insight: checkCreateInsight,
  update_profile_fact: checkProfileFact,
  supersede_fact: checkSupersede,
  add_link: checkLink,
  write_rollup: checkRollup,
  add_commitment: checkAddCommitment,
  complete_commitment: checkCompleteCommitment,
  merge_insights: checkMerge,
  mark_reflected: checkMarkReflected,
};

/** The operations past MAX_OPERATIONS, rejected; `list` keeps the first MAX_OPERATIONS. */
function overLimit(list: unknown[]): Rejected[] {
  if (list.length <= MAX_OPERATIONS) return [];
  const rejected = list.slice(MAX_OPERATIONS).map((op, i) => ({
    index: MAX_OPERATIONS + i,
    op,
    reason: `more than ${MAX_OPERATIONS} operations in one run`,
  }));
  list.length = MAX_OPERATIONS;
  return rejected;
}

/**
 * Model output is data: each operation is checked against the schema, the vault's paths and its
 * layer rules, and must cite entries that were actually shown. What fails is reported, not applied.
 */
export async function validateOperations(
  raw: unknown,
  context: ValidationContext,
): Promise<{ accepted: Operation[]; rejected: Rejected[] }> {
  const list = (raw as { operations?: unknown })?.operations;
  if (!Array.isArray(list)) {
    return {
      accepted: [],
      rejected: [{ index: -1, op: raw, reason: 'the answer has no "operations" array' }],
    };
  }
  const accepted: Operation[] = [];
  const plan: AnswerPlan = {
    context,
    creating: new Set(),
    names: new PlannedNames(),
    pending: pendingCommitments(context.index),
    merged: new Set(),
  };
  const rejected = overLimit(list);
  for (const [index, raw] of list.entries()) {
    try {
      const op = parseOperation(raw);
      const check = CHECKS[op.op] as (op: Operation, plan: AnswerPlan) => Operation | Promise<Operation>;
      accepted.push(await check(op, plan));
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      rejected.push({ index, op: raw, reason: error.message });
    }
  }
  return { accepted, rejected: rejected.sort((a, b) => a.index - b.index) };
}

/**
 * The day a citation (`[[2026-11-16#^e1]]`, `[[16.11.2026]]`, `[[Journal/2026/11/16#^e1]]`) is
 * from: its entry's date, else its note's day under the layout. Read from the note the link
 * reaches, never from the link's text, which names a day only in the default date format.
 */
function citedDay(citation: string, index: VaultIndex): string | undefined {
  const link = /^\[\[([^\]|#]*)(?:#([^\]|]*))?(?:\|[^\]]*)?\]\]$/.exec(citation.trim());
  if (!link) return undefined;
  const path = index.graph.resolve(link[1]!, '');
  const note = path === undefined ? undefined : index.notes.get(path);
  if (!note) return undefined;
  const anchor = link[2];
  const section = anchor ? note.sections.find((s) => s.anchor === anchor) : undefined;
  return section?.date ?? dayOfPath(note.path, index.layout) ?? note.sections.find((s) => s.date)?.date;
}
