import * as z from 'zod/v4';

/** Where an issue is, as a reader writes it: `recall.weights.graph`, `sources.0`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

const KINDS: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

/**
 * What went wrong, as the end of a sentence whose subject is the key ("must be a number"):
 * pass it as a parse's `error` map. A message a schema sets itself takes precedence.
 */
export function issuePhrase(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `is required and must be ${KINDS[issue.expected] ?? issue.expected}`
        : `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return min <= 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      if (issue.origin === 'array') return `must have at least ${min} item${min === 1 ? '' : 's'}`;
      return issue.inclusive ? `must be at least ${min}` : `must be greater than ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `is longer than ${max} characters`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return issue.inclusive ? `must be at most ${max}` : `must be less than ${max}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    default:
      return 'is not valid';
  }
}

/** Edits between two strings, a swap of neighbours counted as one (the commonest typo). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const cell = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, cell(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return cell(a.length, b.length);
}

/** The candidate a mistyped key most likely meant: at most a third of its letters off, case aside. */
export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/** The keys an object schema takes at `path`, looking through defaults and optionals. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (let i = 0; ; i++) {
    while (node instanceof z.ZodPrefault || node instanceof z.ZodDefault || node instanceof z.ZodOptional)
      node = node.unwrap();
    if (!(node instanceof z.ZodObject)) return [];
    const key = path[i];
    if (key === undefined) return Object.keys(node.shape);
    node = node.shape[String(key)];
  }
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[key];
  return node;
}

export interface UnknownKey {
  /** Dotted path of the key, e.g. `recall.wieghts` */
  key: string;
  /** The key it most likely meant, e.g. `recall.weights` */
  suggestion?: string;
}

/**
 * Parses `raw` with a schema of strict objects, leaving out the keys it does not know and
 * returning them, so they can be reported as warnings while the rest is validated.
 */
export function parseWithoutUnknownKeys<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  options?: z.core.ParseContext<z.core.$ZodIssue>,
): { result: z.ZodSafeParseResult<z.output<Schema>>; unknown: UnknownKey[] } {
  const value = structuredClone(raw);
  const unknown: UnknownKey[] = [];
  for (;;) {
    // A config is parsed once or twice a process: zod's compiled fast path (generated code,
    // evaluated at the first parse of each object schema) would cost more to build than it saves.
    const result = schema.safeParse(value, { jitless: true, ...options });
    const issues = result.success
      ? []
      : result.error.issues.filter(
          (issue): issue is z.core.$ZodIssueUnrecognizedKeys => issue.code === 'unrecognized_keys',
        );
    // A strict object reports its own unknown keys, not those of a child that failed: parse again.
    if (issues.length === 0) return { result, unknown };
    for (const issue of issues) {
      const parent = at(value, issue.path) as Record<string, unknown>;
      const prefix = issue.path.length > 0 ? `${issuePath(issue.path)}.` : '';
      for (const key of issue.keys) {
        delete parent[key];
        const suggestion = closestKey(key, keysAt(schema, issue.path));
        unknown.push({ key: prefix + key, ...(suggestion ? { suggestion: prefix + suggestion } : {}) });
      }
    }
  }
}
