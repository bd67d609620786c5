import * as z from 'zod/v4';

/**
 * What reflect may ask for, as one zod schema: the JSON Schema shown to the model is generated
 * from it, the `Operation` type is inferred from it, and the model's answer is parsed with it
 * before the checks that need the vault (validate-operations.ts). There is no operation that
 * deletes a note.
 */

const MAX_TITLE = 200;
const MAX_BODY = 6000;
const MAX_LINE = 1000;
const MAX_PATH = 300;
const MAX_TAGS = 10;
/** Operations one run may apply; a model that answers with hundreds is not reflecting */
export const MAX_OPERATIONS = 50;
/** Line breaks of any kind: CommonMark ends a line at a lone CR too, and U+2028 is a trap */
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

/** An optional value: models write `null` or `""` for "none" as often as they leave it out. */
const absent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null || value === '' ? undefined : value), schema.optional());

const text = (max: number) =>
  z
    .string({ error: 'must be a non-empty string' })
    .trim()
    .min(1, { error: 'must be a non-empty string' })
    .max(max, { error: `is longer than ${max} characters` })
    .refine((value) => !value.includes('\0'), { error: 'contains a NUL byte' });

/** Titles, headings and facts are one line: a line break would let the model add structure. */
const line = (max: number) =>
  text(max).refine((value) => !LINE_BREAK.test(value), { error: 'must be one line' });

/** Markdown that could start a second frontmatter block above the note's own. */
const body = () =>
  text(MAX_BODY).refine((value) => !value.startsWith('---'), {
    error: 'must not start with a frontmatter fence',
  });

/** A line to replace must be a fact, not structure: no fence, heading or frontmatter marker. */
const factLine = line(MAX_LINE).refine(
  (value) => !/^(?:-{3,}|\.{3}|#{1,6}(?:\s|$)|```|~~~)/.test(value) && value.replace(/^[-*]\s*/, '') !== '',
  { error: 'must be one fact line of the note, not a heading, fence or frontmatter marker' },
);

const fraction = (min: number) => {
  const error = `must be a number from ${min} to 1`;
  return z.number({ error }).min(min, { error }).max(1, { error });
};

const day = z
  .string({ error: 'must be YYYY-MM-DD' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be YYYY-MM-DD' });

/** Citations copied from the entries shown; which ones were shown is checked against the vault. */
const sources = (what: string, example: string) =>
  z
    .array(z.string({ error: 'must be a citation' }).trim(), {
      error: `must list at least one cited ${what}`,
    })
    .min(1, { error: `must list at least one cited ${what}` })
    .describe(`citations copied exactly from the entries shown, e.g. ${example}`);

const notePath = (description: string) => text(MAX_PATH).describe(description);

const createInsightSchema = z.object({
  op: z.literal('create_insight'),
  path: notePath('insights/<facts|patterns|lessons|skills>/<kebab-slug>.md; must not exist'),
  title: line(MAX_TITLE).describe('one line'),
  body: body().describe('Markdown body without frontmatter or title heading'),
  sources: sources('entry', '[[2026-11-29#^e7]]'),
  confidence: absent(fraction(0.5)),
  importance: absent(fraction(0)),
  tags: absent(
    z
      .array(line(100), { error: 'must be an array of strings' })
      .max(MAX_TAGS, { error: `must have at most ${MAX_TAGS} tags` }),
  ),
});

const updateProfileFactSchema = z.object({
  op: z.literal('update_profile_fact'),
  path: notePath('profile/... .md (created if missing)'),
  heading: absent(line(MAX_TITLE).describe('section to add the fact under (created if missing)')),
  fact: line(MAX_LINE).describe('one line, ending with its citations'),
  replaces: absent(
    factLine.describe('an existing line of that note, copied exactly, that this fact replaces'),
  ),
  sources: sources('entry', '[[2026-11-29#^e7]]'),
});

const supersedeFactSchema = z.object({
  op: z.literal('supersede_fact'),
  old: notePath('path of the existing insight that is no longer true'),
  new: z.object({
    path: notePath('insights/... .md of the fact that holds now; must not exist'),
    title: line(MAX_TITLE).describe('one line'),
    body: body(),
    confidence: absent(fraction(0.5)),
    importance: absent(fraction(0)),
  }),
  valid_from: absent(day.describe('YYYY-MM-DD the new fact started to hold')),
  valid_to: absent(day.describe('YYYY-MM-DD the old fact stopped holding')),
  sources: sources('entry', '[[2026-11-29#^e7]]'),
});

const addLinkSchema = z.object({
  op: z.literal('add_link'),
  from: notePath('an existing insights/ or profile/ note'),
  to: notePath('an existing note, or one created in this answer'),
});

const writeRollupSchema = z.object({
  op: z.literal('write_rollup'),
  period: z
    .string({ error: 'must be an ISO week YYYY-Www or a month YYYY-MM' })
    .regex(/^\d{4}-(?:W\d{2}|\d{2})$/, { error: 'must be an ISO week YYYY-Www or a month YYYY-MM' })
    .describe(
      'YYYY-Www (ISO week) or YYYY-MM; written to episodes/weekly/ or episodes/monthly/; must not exist',
    ),
  title: line(MAX_TITLE).describe('one line'),
  body: body().describe('a short summary, each point citing its days [[YYYY-MM-DD]] or entries'),
  sources: sources('day or entry', '[[2026-11-17]] or [[2026-11-18#^e1]]'),
});

const markReflectedSchema = z.object({
  op: z.literal('mark_reflected'),
  path: notePath('an episode note shown below, e.g. episodes/daily/2026-11-29.md'),
});

const citation = z
  .string({ error: 'must be a citation' })
  .trim()
  .regex(/^\[\[[^\]\n]+\]\]$/, { error: 'must be one citation such as [[2026-11-29#^e7]]' });

const addCommitmentSchema = z.object({
  op: z.literal('add_commitment'),
  due: day.describe('YYYY-MM-DD the promise or plan is due, resolved from the date of its entry'),
  who: line(100).describe('who promised or plans it, as the entry names them'),
  what: line(300).describe("what was promised or planned, one line, in the entry's words"),
  sources: sources('entry', '[[2026-11-29#^e7]]').describe(
    'the entry that states the promise, copied exactly; the first one is written',
  ),
});

const completeCommitmentSchema = z.object({
  op: z.literal('complete_commitment'),
  commitment: citation.describe(
    'the source link of a pending line of profile/commitments.md, copied exactly, e.g. [[2026-11-29#^e7]]',
  ),
  sources: sources('entry', '[[2026-12-04#^e2]]').describe('the entries that show it was kept'),
});

const mergeInsightsSchema = z.object({
  op: z.literal('merge_insights'),
  keep: notePath('the insight that stays, an existing insights/ note'),
  duplicate: notePath(
    'an existing insights/ note stating the same fact; it is superseded by keep, not deleted',
  ),
});

export const operationSchema = z.discriminatedUnion('op', [
  createInsightSchema,
  updateProfileFactSchema,
  supersedeFactSchema,
  addLinkSchema,
  writeRollupSchema,
  markReflectedSchema,
  addCommitmentSchema,
  completeCommitmentSchema,
  mergeInsightsSchema,
]);

/** The model's whole answer. Its operations are checked one by one, so one bad one costs only itself. */
export const answerSchema = z.object({
  operations: z.array(operationSchema).max(MAX_OPERATIONS),
});

/** An operation as parsed: strings trimmed, `null` and `""` for an optional value read as absent. */
export type Operation = z.output<typeof operationSchema>;

let shownSchema: Record<string, unknown> | undefined;

/**
 * The JSON Schema shown to the model: what it writes, before parsing. Built on first use, not at
 * load: generating it costs about 10 ms that a recall or a compile never needs.
 */
export function operationsJsonSchema(): Record<string, unknown> {
  if (!shownSchema) {
    const { $schema: _, ...schema } = z.toJSONSchema(answerSchema, { io: 'input' });
    shownSchema = schema;
  }
  return shownSchema;
}
