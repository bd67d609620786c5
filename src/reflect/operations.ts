/** What reflect may ask for. There is no operation that deletes a note. */
export type Operation =
  | {
      op: 'create_insight';
      path: string;
      title: string;
      body: string;
      sources: string[];
      confidence?: number;
      importance?: number;
      tags?: string[];
    }
  | {
      op: 'update_profile_fact';
      path: string;
      heading?: string;
      fact: string;
      /** An existing line this fact replaces (a fact that changed); must match the note exactly */
      replaces?: string;
      sources: string[];
    }
  | {
      op: 'supersede_fact';
      old: string;
      new: { path: string; title: string; body: string; confidence?: number; importance?: number };
      valid_from?: string;
      valid_to?: string;
      sources: string[];
    }
  | { op: 'add_link'; from: string; to: string }
  | {
      op: 'write_rollup';
      /** `2026-W47` (ISO week) or `2026-11` (month) */
      period: string;
      title: string;
      body: string;
      sources: string[];
    }
  | { op: 'mark_reflected'; path: string };

/** The JSON Schema shown to the model; the validator below is what is enforced. */
export const OPERATIONS_SCHEMA = {
  type: 'object',
  required: ['operations'],
  properties: {
    operations: {
      type: 'array',
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['op', 'path', 'title', 'body', 'sources'],
            properties: {
              op: { const: 'create_insight' },
              path: {
                type: 'string',
                description: 'insights/<facts|patterns|lessons|skills>/<kebab-slug>.md; must not exist',
              },
              title: { type: 'string' },
              body: { type: 'string', description: 'Markdown body without frontmatter or title heading' },
              sources: {
                type: 'array',
                items: { type: 'string', pattern: '^\\[\\[\\d{4}-\\d{2}-\\d{2}#\\^[A-Za-z0-9-]+\\]\\]$' },
              },
              confidence: { type: 'number', minimum: 0.5, maximum: 1 },
              importance: { type: 'number', minimum: 0, maximum: 1 },
              tags: { type: 'array', items: { type: 'string' } },
            },
          },
          {
            type: 'object',
            required: ['op', 'path', 'fact', 'sources'],
            properties: {
              op: { const: 'update_profile_fact' },
              path: { type: 'string', description: 'profile/... .md (created if missing)' },
              heading: { type: 'string', description: 'section to add the fact under (created if missing)' },
              fact: { type: 'string', description: 'one line, ending with its citations' },
              replaces: {
                type: 'string',
                description: 'an existing line of that note, copied exactly, that this fact replaces',
              },
              sources: { type: 'array', items: { type: 'string' } },
            },
          },
          {
            type: 'object',
            required: ['op', 'old', 'new', 'sources'],
            properties: {
              op: { const: 'supersede_fact' },
              old: { type: 'string', description: 'path of the existing insight that is no longer true' },
              new: {
                type: 'object',
                required: ['path', 'title', 'body'],
                properties: {
                  path: { type: 'string' },
                  title: { type: 'string' },
                  body: { type: 'string' },
                  confidence: { type: 'number' },
                  importance: { type: 'number' },
                },
              },
              valid_from: { type: 'string', description: 'YYYY-MM-DD the new fact started to hold' },
              valid_to: { type: 'string', description: 'YYYY-MM-DD the old fact stopped holding' },
              sources: { type: 'array', items: { type: 'string' } },
            },
          },
          {
            type: 'object',
            required: ['op', 'from', 'to'],
            properties: { op: { const: 'add_link' }, from: { type: 'string' }, to: { type: 'string' } },
          },
          {
            type: 'object',
            required: ['op', 'period', 'title', 'body', 'sources'],
            properties: {
              op: { const: 'write_rollup' },
              period: {
                type: 'string',
                description:
                  'YYYY-Www (ISO week) or YYYY-MM; written to episodes/weekly/ or episodes/monthly/; must not exist',
              },
              title: { type: 'string' },
              body: {
                type: 'string',
                description: 'a short summary, each point citing its days [[YYYY-MM-DD]] or entries',
              },
              sources: { type: 'array', items: { type: 'string' } },
            },
          },
          {
            type: 'object',
            required: ['op', 'path'],
            properties: { op: { const: 'mark_reflected' }, path: { type: 'string' } },
          },
        ],
      },
    },
  },
} as const;
