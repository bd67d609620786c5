// A rollup written by a model: events, people and relationships, a timeline, reflections, and a
// capsule line the next level reads first. The answer is data: parsed with a schema, every line
// one line, every citation one that was shown; the engine renders the note itself.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { issuePath, issuePhrase } from '../../core/config/schema-issues.js';
import { MemError } from '../../core/errors.js';
import { readRegularText } from '../../core/regular-file.js';
import { TEMPLATES_DIR } from '../../core/templates-dir.js';
import type { Llm } from '../../models/llm.js';
import { escapeComments, withoutComments } from '../../vault/markdown/comments.js';
import { findOnDisk } from '../../vault/paths.js';
import { redactSecrets } from '../../write/redact/redact.js';
import type { RollupText } from './extractive-rollup.js';
import type { RollupInput } from './rollup-input.js';

/** Entries shown to the model; a year of days is read through the parts' capsules and summaries. */
const MAX_ENTRIES = 400;
/** Characters of the parts' summaries shown */
const SUMMARY_CHARS = 24_000;
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

const line = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !LINE_BREAK.test(v), { error: 'must be one line' })
    .refine((v) => !v.includes('\0'), { error: 'contains a NUL byte' });
const lines = (description: string) => z.array(line(1000)).max(40).default([]).describe(description);

export const rollupAnswerSchema = z.object({
  title: line(200).describe('one line'),
  events: lines('what happened, one line each, ending with citations'),
  people: lines('people and relationships, one line each, ending with citations'),
  timeline: lines('YYYY-MM-DD: what happened, in order, ending with citations'),
  reflections: lines('what the period means for the user, ending with citations'),
  capsule: line(300).describe('the period in one line, read first by the next level'),
});

let shownSchema: string | undefined;

/** The JSON Schema shown to the model, built on first use: at load it would cost every command about 7 ms. */
function answerSchema(): string {
  if (shownSchema === undefined) {
    const { $schema: _, ...schema } = z.toJSONSchema(rollupAnswerSchema, { io: 'input' });
    shownSchema = JSON.stringify(schema);
  }
  return shownSchema;
}

/** A fence longer than any backtick run in `text`, so the text cannot close it and speak as instructions. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}markdown\n${text.trimEnd()}\n${fence}`;
}

export async function buildRollupPrompt(root: string, input: RollupInput): Promise<string> {
  const template = await readFile(join(TEMPLATES_DIR, 'prompts', 'rollup.md'), 'utf8');
  const capsules = input.parts
    .filter((p) => p.kind === 'rollup')
    .map((p) => `- ${p.cite}: ${p.capsule ?? '(no capsule)'}`);
  const summaries: string[] = [];
  let used = 0;
  for (const part of input.parts.filter((p) => p.kind === 'rollup')) {
    const raw = await readRegularText(await findOnDisk(root, part.note.path)).catch(() => '');
    const block = `## ${part.cite}\n\n${fenced(withoutComments(raw))}`;
    if (used + block.length > SUMMARY_CHARS) break;
    summaries.push(block);
    used += block.length;
  }
  const entries = input.entries.slice(-MAX_ENTRIES).map((e) => {
    const who = e.section.speaker ? ` **${e.section.speaker}:**` : '';
    const when = [e.section.date, e.section.time].filter(Boolean).join(' ');
    return `- ${e.cite} ${when}${who} ${e.section.text.replace(/\s*\n\s*/g, ' ').trim()}`;
  });
  return template
    .replaceAll('{{level}}', input.level === 'week' ? 'weekly' : `${input.level}ly`)
    .replaceAll('{{period}}', input.period)
    .replaceAll('{{from}}', input.days.from)
    .replaceAll('{{to}}', input.days.to)
    .replace('{{schema}}', () => answerSchema())
    .replace('{{capsules}}', () => (capsules.length > 0 ? capsules.join('\n') : '(none: built from days)'))
    .replace('{{summaries}}', () => (summaries.length > 0 ? summaries.join('\n\n') : '(none)'))
    .replace('{{entries}}', () => fenced(entries.join('\n')));
}

/** The citations a rollup of `input` may use: its entries and its parts. */
export function allowedCitations(input: RollupInput): Set<string> {
  return new Set([...input.entries.map((e) => e.cite), ...input.parts.map((p) => p.cite)]);
}

export interface LlmRollup extends RollupText {
  /** Lines left out because they cited something that was not shown */
  dropped: string[];
}

/**
 * Asks the model for the rollup of `input`. A model error, a timeout or an answer that does not
 * fit the schema throws a MemError, so nothing is written; a line with an unknown citation is
 * dropped and reported.
 */
export async function llmRollup(root: string, input: RollupInput, llm: Llm): Promise<LlmRollup> {
  const prompt = await buildRollupPrompt(root, input);
  const raw = await llm.completeJson(prompt, 'Return the rollup JSON object now.');
  const parsed = rollupAnswerSchema.safeParse(raw, { error: issuePhrase });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemError(
      'LLM',
      `the model's rollup of ${input.period} does not fit the schema (${issue ? `${issuePath(issue.path)} ${issue.message}` : 'invalid'}); nothing was written`,
    );
  }
  const allowed = allowedCitations(input);
  const dropped: string[] = [];
  const keep = (items: string[]) =>
    items
      .map((item) => escapeComments(redactSecrets(item).text))
      .filter((item) => {
        const unknown = [...item.matchAll(/\[\[[^\]]*\]\]/g)].filter(
          // Links to people and places are welcome; only citations of days, entries and parts are checked.
          (m) => /^\[\[(?:[^\]]*\/)?\d{4}(?:-|\]\]|#)/.test(m[0]) && !allowed.has(m[0]),
        );
        if (unknown.length > 0) dropped.push(item);
        return unknown.length === 0;
      })
      .map((item) => `- ${item.replace(/^[-*]\s+/, '')}`);
  const answer = parsed.data;
  const capsule = escapeComments(redactSecrets(answer.capsule).text);
  const section = (heading: string, items: string[]) => {
    const kept = keep(items);
    return kept.length > 0 ? [`## ${heading}`, '', ...kept, ''] : [];
  };
  const body = [
    ...section('Events', answer.events),
    ...section('People and relationships', answer.people),
    ...section('Timeline', answer.timeline),
    ...section('Reflections', answer.reflections),
    '## Sources',
    '',
    ...input.parts.map((p) => `- ${p.cite}`),
    '',
    '## Capsule',
    '',
    capsule,
    '',
  ].join('\n');
  return { title: redactSecrets(answer.title).text, body, capsule, dropped };
}
