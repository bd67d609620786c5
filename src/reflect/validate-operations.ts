import type { VaultIndex } from '../indexing/vault-index.js';
import { rollupPeriod } from '../time/rollup-period.js';
import { layerOf } from '../vault/layer.js';
import { noteNameProblem } from '../vault/link-name.js';
import { resolveInVault } from '../vault/paths.js';
import type { Operation } from './operations.js';

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
}

export interface Rejected {
  index: number;
  op: unknown;
  reason: string;
}

class Invalid extends Error {}

const MAX_TITLE = 200;
const MAX_BODY = 6000;
const MAX_LINE = 1000;
/** Operations one run may apply; a model that answers with hundreds is not reflecting */
const MAX_OPERATIONS = 50;
/** Line breaks of any kind: CommonMark ends a line at a lone CR too, and U+2028 is a trap */
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new Invalid(`${name} must be a non-empty string`);
  if (value.length > max) throw new Invalid(`${name} is longer than ${max} characters`);
  if (value.includes('\0')) throw new Invalid(`${name} contains a NUL byte`);
  return value.trim();
}

/** Titles, headings and facts are one line: a line break would let the model add structure. */
function line(value: unknown, name: string, max: number): string {
  const result = text(value, name, max);
  if (LINE_BREAK.test(result)) throw new Invalid(`${name} must be one line`);
  return result;
}

function optionalNumber(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !(value >= min && value <= 1))
    throw new Invalid(`${name} must be a number from ${min} to 1`);
  return value;
}

function optionalDay(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new Invalid(`${name} must be YYYY-MM-DD`);
  return value;
}

function sources(value: unknown, context: ValidationContext): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new Invalid('sources must list at least one cited entry');
  const unknown = value.filter((s) => typeof s !== 'string' || !context.sources.has(s.trim()));
  if (unknown.length > 0) {
    throw new Invalid(
      `sources cite entries that were not shown: ${unknown.map((s) => JSON.stringify(s)).join(', ')}`,
    );
  }
  return [...new Set(value.map((s: string) => s.trim()))];
}

/** A rollup cites whole days (`[[2026-11-16]]`) of the episodes shown, or their entries. */
function rollupSources(value: unknown, context: ValidationContext): string[] {
  const days = new Set(
    [...context.episodes].map((p) => `[[${p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/, '')}]]`),
  );
  if (!Array.isArray(value) || value.length === 0)
    throw new Invalid('sources must list at least one cited day or entry');
  const unknown = value.filter(
    (s) => typeof s !== 'string' || !(context.sources.has(s.trim()) || days.has(s.trim())),
  );
  if (unknown.length > 0) {
    throw new Invalid(
      `sources cite days or entries that were not shown: ${unknown.map((s) => JSON.stringify(s)).join(', ')}`,
    );
  }
  return [...new Set(value.map((s: string) => s.trim()))];
}

/** A line to replace must be a fact, not structure: no fence, heading or frontmatter marker. */
function factLine(value: unknown): string {
  const fact = line(value, 'replaces', MAX_LINE);
  if (/^(?:-{3,}|\.{3}|#{1,6}(?:\s|$)|```|~~~)/.test(fact) || fact.replace(/^[-*]\s*/, '') === '') {
    throw new Invalid(
      'replaces must be one fact line of the note, not a heading, fence or frontmatter marker',
    );
  }
  return fact;
}

/** Markdown that could start a second frontmatter block or smuggle in a heading above the note's own. */
function body(value: unknown, name: string): string {
  const result = text(value, name, MAX_BODY);
  if (result.startsWith('---')) throw new Invalid(`${name} must not start with a frontmatter fence`);
  return result;
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
  const rejected: Rejected[] = [];
  const creating = new Set<string>();
  if (list.length > MAX_OPERATIONS) {
    for (const [i, op] of list.slice(MAX_OPERATIONS).entries()) {
      rejected.push({
        index: MAX_OPERATIONS + i,
        op,
        reason: `more than ${MAX_OPERATIONS} operations in one run`,
      });
    }
    list.length = MAX_OPERATIONS;
  }

  const notePath = async (value: unknown, name: string, layers: string[], mustExist: boolean | 'new') => {
    const given = text(value, name, 300);
    let rel: string;
    try {
      rel = (await resolveInVault(context.root, given.endsWith('.md') ? given : `${given}.md`)).rel;
    } catch (error) {
      throw new Invalid(`${name}: ${(error as Error).message}`);
    }
    const problem = mustExist === 'new' ? noteNameProblem(rel.slice(rel.lastIndexOf('/') + 1)) : undefined;
    if (problem) throw new Invalid(`${name} ${rel}: ${problem}`);
    const layer = layerOf(rel);
    const allowed = context.allowPersonaEdits ? [...layers, 'persona'] : layers;
    if (!allowed.includes(layer))
      throw new Invalid(`${name} ${rel} is in ${layer}/, not in ${allowed.join('/ or ')}/`);
    const exists = context.index.notes.has(rel) || creating.has(rel);
    if (mustExist === true && !exists) throw new Invalid(`${name} ${rel} does not exist`);
    if (mustExist === 'new' && exists)
      throw new Invalid(`${name} ${rel} already exists; nothing is overwritten`);
    return rel;
  };

  for (const [index, op] of list.entries()) {
    try {
      if (!op || typeof op !== 'object') throw new Invalid('not an object');
      const o = op as Record<string, unknown>;
      switch (o['op']) {
        case 'create_insight': {
          const path = await notePath(o['path'], 'path', ['insights'], 'new');
          accepted.push({
            op: 'create_insight',
            path,
            title: line(o['title'], 'title', MAX_TITLE),
            body: body(o['body'], 'body'),
            sources: sources(o['sources'], context),
            confidence: optionalNumber(o['confidence'], 'confidence', 0.5),
            importance: optionalNumber(o['importance'], 'importance', 0),
            tags: Array.isArray(o['tags'])
              ? o['tags'].filter((t): t is string => typeof t === 'string').slice(0, 10)
              : undefined,
          });
          // Counted as existing only once the whole operation passed.
          creating.add(path);
          break;
        }
        case 'update_profile_fact': {
          const fact = line(o['fact'], 'fact', MAX_LINE);
          accepted.push({
            op: 'update_profile_fact',
            path: await notePath(o['path'], 'path', ['profile'], false),
            heading: o['heading'] === undefined ? undefined : line(o['heading'], 'heading', MAX_TITLE),
            fact,
            replaces:
              o['replaces'] === undefined || o['replaces'] === null ? undefined : factLine(o['replaces']),
            sources: sources(o['sources'], context),
          });
          break;
        }
        case 'supersede_fact': {
          // Only insights are superseded; a profile changes through update_profile_fact, so the
          // core profile and pinned notes can never be retired by a model.
          const old = await notePath(o['old'], 'old', ['insights'], true);
          const status = context.index.notes.get(old)?.frontmatter['status'];
          if (status === 'superseded') throw new Invalid(`old ${old} is already superseded`);
          const next = (o['new'] ?? {}) as Record<string, unknown>;
          const path = await notePath(next['path'], 'new.path', ['insights'], 'new');
          accepted.push({
            op: 'supersede_fact',
            old,
            new: {
              path,
              title: line(next['title'], 'new.title', MAX_TITLE),
              body: body(next['body'], 'new.body'),
              confidence: optionalNumber(next['confidence'], 'new.confidence', 0.5),
              importance: optionalNumber(next['importance'], 'new.importance', 0),
            },
            valid_from: optionalDay(o['valid_from'], 'valid_from'),
            valid_to: optionalDay(o['valid_to'], 'valid_to'),
            sources: sources(o['sources'], context),
          });
          creating.add(path);
          break;
        }
        case 'add_link': {
          const from = await notePath(o['from'], 'from', ['insights', 'profile'], true);
          const to = await notePath(o['to'], 'to', ['insights', 'profile', 'episodes', 'persona'], true);
          if (from === to) throw new Invalid('a note cannot link to itself');
          accepted.push({ op: 'add_link', from, to });
          break;
        }
        case 'write_rollup': {
          const period = text(o['period'], 'period', 10);
          const days = rollupPeriod(period);
          if (!days) throw new Invalid('period must be an ISO week YYYY-Www or a month YYYY-MM');
          // A rollup stands in for its days: one for a period still going on would hide what comes next.
          if (days.to >= context.today)
            throw new Invalid(`period ${period} has not ended yet (it runs to ${days.to})`);
          const weekly = period.includes('W');
          const path = await notePath(
            `episodes/${weekly ? 'weekly' : 'monthly'}/${period}.md`,
            'period',
            ['episodes'],
            'new',
          );
          const cited = rollupSources(o['sources'], context);
          const outside = cited.filter((c) => {
            const day = /^\[\[(\d{4}-\d{2}-\d{2})/.exec(c)?.[1] ?? '';
            return day < days.from || day > days.to;
          });
          if (outside.length > 0) throw new Invalid(`sources outside ${period}: ${outside.join(', ')}`);
          creating.add(path);
          accepted.push({
            op: 'write_rollup',
            period,
            title: line(o['title'], 'title', MAX_TITLE),
            body: body(o['body'], 'body'),
            sources: cited,
          });
          break;
        }
        case 'mark_reflected': {
          const path = text(o['path'], 'path', 300);
          const rel = path.endsWith('.md') ? path : `${path}.md`;
          if (!context.episodes.has(rel)) throw new Invalid(`${rel} was not among the episodes shown`);
          accepted.push({ op: 'mark_reflected', path: rel });
          break;
        }
        default:
          throw new Invalid(`unknown operation ${JSON.stringify(o['op'])}`);
      }
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      rejected.push({ index, op, reason: error.message });
    }
  }
  return { accepted, rejected: rejected.sort((a, b) => a.index - b.index) };
}
