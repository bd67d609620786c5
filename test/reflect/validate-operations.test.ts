import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config/config.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { episodeSources } from '../../src/reflect/build-prompt.js';
import { operationsJsonSchema } from '../../src/reflect/operations.js';
import { type ValidationContext, validateOperations } from '../../src/reflect/validate-operations.js';
import { layoutOf } from '../../src/vault/layout.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

// The operations contract used to live three times: a TS type, a hand-written JSON Schema shown to
// the model, and a hand-written validator. Each test below pins one place where they disagreed.

const FILES: Record<string, string> = {
  'profile/user.md': '# Rain\n\n## Likes\n- Oolong tea.\n',
  'insights/facts/lives-in-hangzhou.md': '# Rain lives in Hangzhou\n',
  'episodes/daily/2026-11-29.md': '# 2026-11-29\n\n- 09:00 **Rain:** We moved to Shanghai ^e1\n',
  // A second note of the same name: citations of the episode must then name its folder.
  'episodes/daily/2026-11-16.md': '# 2026-11-16\n\n- 09:00 **Rain:** Tea time ^e1\n',
  'insights/2026-11-16.md': '# A note named like a day\n',
};

let context: ValidationContext;

beforeAll(async () => {
  const root = await makeVault(FILES);
  const index = new VaultIndex();
  await refreshIndex(root, index);
  const episodes = ['episodes/daily/2026-11-29.md', 'episodes/daily/2026-11-16.md'];
  context = {
    root,
    index,
    sources: episodeSources(
      index,
      episodes.map((p) => index.notes.get(p)!),
    ),
    episodes: new Set(episodes),
    allowPersonaEdits: false,
    today: '2026-11-30',
  };
});

afterAll(cleanupVaults);

const SRC = ['[[2026-11-29#^e1]]'];
const insight = (extra: Record<string, unknown> = {}) => ({
  op: 'create_insight',
  path: 'insights/facts/moved.md',
  title: 'Rain moved to Shanghai',
  body: 'Moved ([[2026-11-29#^e1]]).',
  sources: SRC,
  ...extra,
});

async function reasons(...operations: unknown[]): Promise<string[]> {
  const { rejected } = await validateOperations({ operations }, context);
  return rejected.map((r) => r.reason);
}

type Json = Record<string, unknown>;
type ShownOperation = { properties: Record<string, Json>; required: string[] };
const shownOperations = (operationsJsonSchema()['properties'] as Record<string, Json & { items: unknown }>)[
  'operations'
] as Json & { items: { oneOf: ShownOperation[] } };

/** The JSON Schema shown to the model for one operation. */
function shown(op: string): ShownOperation {
  const found = shownOperations.items.oneOf.find((o) => o.properties['op']?.['const'] === op);
  if (!found) throw new Error(`no schema shown for ${op}`);
  return found;
}

describe('the operations schema shown to the model and the validator agree', () => {
  it('shows every operation the validator accepts, with the fields it requires', () => {
    const ops = shownOperations.items.oneOf.map((o) => o.properties['op']?.['const']);
    expect(ops).toEqual([
      'create_insight',
      'update_profile_fact',
      'supersede_fact',
      'add_link',
      'write_rollup',
      'mark_reflected',
      'add_commitment',
      'complete_commitment',
      'merge_insights',
    ]);
    expect(shown('create_insight').required).toEqual(['op', 'path', 'title', 'body', 'sources']);
    expect(shown('update_profile_fact').required).toEqual(['op', 'path', 'fact', 'sources']);
    expect(shown('supersede_fact').required).toEqual(['op', 'old', 'new', 'sources']);
  });

  it("bounds a superseding fact's confidence and importance as the validator does (they were shown unbounded)", async () => {
    const next = shown('supersede_fact').properties['new'] as { properties: Record<string, Json> };
    expect(next.properties['confidence']).toMatchObject({ minimum: 0.5, maximum: 1 });
    expect(next.properties['importance']).toMatchObject({ minimum: 0, maximum: 1 });
    const supersede = (extra: Record<string, unknown>) => ({
      op: 'supersede_fact',
      old: 'insights/facts/lives-in-hangzhou.md',
      new: { path: 'insights/facts/lives-in-shanghai.md', title: 'Lives in Shanghai', body: 'x', ...extra },
      sources: SRC,
    });
    expect(await reasons(supersede({ confidence: 0.3 }), supersede({ importance: 1.5 }))).toEqual([
      'new.confidence must be a number from 0.5 to 1',
      'new.importance must be a number from 0 to 1',
    ]);
  });

  it('shows sources as citations without a pattern that refused valid ones, and at least one of them', async () => {
    // The old schema shown for create_insight required [[YYYY-MM-DD#^id]]; a citation that needs
    // its folder (two notes named 2026-11-16) is what the engine itself writes and accepts.
    const cited = [...context.sources].find((s) => s.includes('2026-11-16'));
    expect(cited).toBe('[[episodes/daily/2026-11-16#^e1]]');
    for (const op of ['create_insight', 'update_profile_fact', 'supersede_fact', 'write_rollup']) {
      expect(shown(op).properties['sources']).toMatchObject({ type: 'array', minItems: 1 });
      expect(shown(op).properties['sources']?.['items']).toEqual({ type: 'string' });
    }
    const { accepted } = await validateOperations({ operations: [insight({ sources: [cited] })] }, context);
    expect(accepted.map((o) => o.op)).toEqual(['create_insight']);
    expect(await reasons(insight({ sources: [] }))).toEqual(['sources must list at least one cited entry']);
  });

  it('reads null and "" as "not given" for every optional field (heading and tags used to refuse or drop them)', async () => {
    const { accepted, rejected } = await validateOperations(
      {
        operations: [
          insight({ confidence: null, importance: null, tags: null }),
          {
            op: 'update_profile_fact',
            path: 'profile/user.md',
            heading: null,
            fact: 'Moved to Shanghai ([[2026-11-29#^e1]]).',
            replaces: '',
            sources: SRC,
          },
        ],
      },
      context,
    );
    expect(rejected).toEqual([]);
    expect(accepted[0]).toMatchObject({ op: 'create_insight', confidence: undefined, tags: undefined });
    expect(accepted[1]).toMatchObject({ op: 'update_profile_fact', heading: undefined, replaces: undefined });
  });

  it('refuses tags that are not a list of at most 10 strings (they were dropped or cut without a word)', async () => {
    expect(shown('create_insight').properties['tags']).toMatchObject({ type: 'array', maxItems: 10 });
    expect(
      await reasons(
        insight({ tags: 'move' }),
        insight({ tags: ['move', 42] }),
        insight({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
      ),
    ).toEqual([
      'tags must be an array of strings',
      'tags.1 must be a non-empty string',
      'tags must have at most 10 tags',
    ]);
    const { accepted } = await validateOperations({ operations: [insight({ tags: [' move '] })] }, context);
    expect(accepted[0]).toMatchObject({ tags: ['move'] });
  });

  it('shows the lengths, formats and counts the validator enforces (none were shown)', async () => {
    const create = shown('create_insight').properties;
    expect(create['title']).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(create['body']).toMatchObject({ minLength: 1, maxLength: 6000 });
    expect(create['path']).toMatchObject({ minLength: 1, maxLength: 300 });
    expect(shown('update_profile_fact').properties['fact']).toMatchObject({ maxLength: 1000 });
    expect(shown('write_rollup').properties['period']).toMatchObject({
      pattern: '^\\d{4}-(?:W\\d{2}|\\d{2})$',
    });
    expect(shown('supersede_fact').properties['valid_from']).toMatchObject({
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    });
    expect(shownOperations).toMatchObject({ maxItems: 50 });
    expect(
      await reasons(
        insight({ title: 'x'.repeat(201) }),
        insight({ title: '   ' }),
        { op: 'write_rollup', period: 'last week', title: 'x', body: 'x', sources: ['[[2026-11-16]]'] },
        {
          op: 'supersede_fact',
          old: 'insights/facts/lives-in-hangzhou.md',
          new: { path: 'insights/facts/x.md', title: 'x', body: 'x' },
          valid_from: '28 Nov',
          sources: SRC,
        },
      ),
    ).toEqual([
      'title is longer than 200 characters',
      'title must be a non-empty string',
      'period must be an ISO week YYYY-Www or a month YYYY-MM',
      'valid_from must be YYYY-MM-DD',
    ]);
  });

  it('refuses what is not an operation with a reason, and still applies the valid ones', async () => {
    const { accepted, rejected } = await validateOperations(
      {
        operations: [
          'create an insight',
          { op: 'delete_note', path: 'profile/user.md' },
          { path: 'profile/user.md' },
          { op: 'supersede_fact', old: 'insights/facts/lives-in-hangzhou.md', sources: SRC },
          insight(),
        ],
      },
      context,
    );
    expect(rejected.map((r) => [r.index, r.reason])).toEqual([
      [0, 'not an object'],
      [1, 'unknown operation "delete_note"'],
      [2, 'unknown operation undefined'],
      [3, 'new is required and must be an object'],
    ]);
    expect(accepted).toEqual([
      {
        op: 'create_insight',
        path: 'insights/facts/moved.md',
        title: 'Rain moved to Shanghai',
        body: 'Moved ([[2026-11-29#^e1]]).',
        sources: SRC,
      },
    ]);
  });

  it('checks that a rollup cites days inside its period when a citation names its folder', async () => {
    const { accepted, rejected } = await validateOperations(
      {
        operations: [
          {
            op: 'write_rollup',
            period: '2026-W47',
            title: 'Week 47',
            body: '- Tea ([[episodes/daily/2026-11-16#^e1]]).',
            sources: ['[[episodes/daily/2026-11-16#^e1]]'],
          },
        ],
      },
      context,
    );
    expect(rejected).toEqual([]);
    expect(accepted.map((o) => o.op)).toEqual(['write_rollup']);
  });
});

describe('citations in a vault whose days are not named YYYY-MM-DD', () => {
  it("take a rollup's and a commitment's days from the note a citation reaches, not from its text", async () => {
    const root = await makeVault(
      {
        'Journal/16.11.2026.md':
          '# Mon\n\n- 09:00 **Rain:** Tea time ^e1\n- 09:05 **Rain:** I will call Mum on Friday ^e2\n',
        'Journal/29.11.2026.md': '# Sun\n\n- 09:00 **Rain:** Moved ^e1\n',
      },
      { config: { timezone: 'UTC', layout: { daily: { folder: 'Journal', format: 'DD.MM.YYYY' } } } },
    );
    const index = new VaultIndex();
    index.layout = layoutOf(
      resolveConfig({ layout: { daily: { folder: 'Journal', format: 'DD.MM.YYYY' } } }),
    );
    await refreshIndex(root, index);
    const episodes = ['Journal/16.11.2026.md', 'Journal/29.11.2026.md'];
    const adopted: ValidationContext = {
      root,
      index,
      sources: episodeSources(
        index,
        episodes.map((p) => index.notes.get(p)!),
      ),
      episodes: new Set(episodes),
      allowPersonaEdits: false,
      today: '2026-11-30',
    };
    const rollup = (period: string, source: string) => ({
      op: 'write_rollup',
      period,
      title: 'A week',
      body: `- Tea (${source}).`,
      sources: [source],
    });
    const { accepted, rejected } = await validateOperations(
      {
        operations: [
          rollup('2026-W47', '[[16.11.2026#^e1]]'),
          rollup('2026-W46', '[[29.11.2026#^e1]]'),
          {
            op: 'add_commitment',
            due: '2026-11-10',
            who: 'Rain',
            what: 'call Mum',
            sources: ['[[16.11.2026#^e2]]'],
          },
        ],
      },
      adopted,
    );
    expect(accepted.map((o) => o.op)).toEqual(['write_rollup']);
    expect(rejected.map((r) => r.reason)).toEqual([
      'sources outside 2026-W46: [[29.11.2026#^e1]]',
      'due 2026-11-10 is before the entry that states it (2026-11-16)',
    ]);
  });
});
