import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { MemError } from '../../core/errors.js';

/**
 * A client's config read with `jsonc-parser` (the parser VS Code itself uses for its settings and
 * `mcp.json`), so the edit can find members by offset whatever comments and commas surround them.
 * `jsonc` lets comments and trailing commas through, as VS Code reads its files; the other clients
 * read strict JSON, and a comment there would break them, so it is refused as JSON.parse would.
 */
export interface JsonTree {
  /** The root node; undefined for an empty file */
  root: Node | undefined;
  /** The value the client reads */
  value: unknown;
}

export function readJsonTree(body: string, options: { jsonc: boolean; path: string }): JsonTree {
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, {
    allowTrailingComma: options.jsonc,
    disallowComments: !options.jsonc,
    allowEmptyContent: true,
  });
  const error = errors[0];
  if (error) {
    const { line, column } = lineAndColumn(body, error.offset);
    const what = options.jsonc ? 'valid JSON with comments' : 'valid JSON';
    throw new MemError(
      'INVALID_CONFIG',
      `${options.path} is not ${what} (${printParseErrorCode(error.error)} at line ${line} column ${column}); mem left it untouched: fix it, or move it aside and run again`,
    );
  }
  return { root, value: root ? nodeValue(root) : undefined };
}

/** The parsed value of `text` as a JSONC reader sees it, or undefined when it does not parse. */
export function jsoncValue(text: string): unknown {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, allowEmptyContent: true });
  return errors.length > 0 || !root ? undefined : nodeValue(root);
}

/**
 * A node's value. Objects are built with `Object.fromEntries`, which defines keys as JSON.parse
 * does (jsonc-parser's own `getNodeValue` assigns them, and a `"__proto__"` key would set the
 * prototype instead of being kept); a repeated key keeps its last value, as in JSON.parse.
 */
export function nodeValue(node: Node): unknown {
  if (node.type === 'object') {
    return Object.fromEntries(
      (node.children ?? []).map((property) => {
        const [key, value] = property.children ?? [];
        return [key?.value as string, value ? nodeValue(value) : undefined];
      }),
    );
  }
  if (node.type === 'array') return (node.children ?? []).map(nodeValue);
  return node.value;
}

/** The last `"key": value` member of an object node named `key` (JSON.parse keeps the last). */
export function memberOf(object: Node, key: string): { property: Node; value: Node } | undefined {
  const property = (object.children ?? []).findLast((p) => p.children?.[0]?.value === key);
  const value = property?.children?.[1];
  return property && value ? { property, value } : undefined;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
