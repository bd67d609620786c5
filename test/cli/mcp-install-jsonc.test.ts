import { diffArrays } from 'diff';
import fc from 'fast-check';
import {
  createScanner,
  findNodeAtLocation,
  type ParseError,
  parse,
  parseTree,
  SyntaxKind,
} from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { CLIENTS } from '../../src/cli/mcp-install/clients.js';
import { mergeJson } from '../../src/cli/mcp-install/json-config.js';

// VS Code reads its mcp.json as JSONC (comments, trailing commas), and `mem mcp install vscode`
// edits it in place. Files of many shapes are made here by decorating pretty-printed JSON, which is
// JSONC at every one of these spots: a comment at the end of any line, a comment line or block
// before any line, a trailing comma after the last member of an object or array, and comments
// before and after the root value.
const client = CLIENTS.vscode;
const SERVER = { command: 'mem', args: ['mcp', '--vault', '/v'] };
const entry = client.entry(SERVER);
const opts = (force = false) => ({ force, path: 'mcp.json' });

/** Comment texts that look like what they must not be taken for: JSON, a URL, a closing brace. */
const lineComment = fc.constantFrom(
  '// my servers',
  '// "memvault": {"command": "old"},',
  '// see https://code.visualstudio.com/docs/copilot/chat/mcp-servers',
  '// } ] ,',
  '// 我的服务器',
  '//',
);
const blockComment = fc.constantFrom('/* a block */', '/* "x": 1, } */', '/**\n * two lines\n */', '/**/');

/** What happens at one line: a comment after it, a comment line before it, a trailing comma. */
const decoration = fc.record({
  after: fc.option(fc.oneof(lineComment, blockComment), { freq: 3 }),
  before: fc.option(fc.oneof(lineComment, blockComment), { freq: 4 }),
  trailingComma: fc.boolean(),
});

const name = fc.string({ maxLength: 6 }).filter((k) => k !== 'memvault' && k !== 'servers');
const otherServer = fc.record({
  type: fc.constant('stdio'),
  command: fc.string({ maxLength: 8 }),
  args: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
});
const configs = fc.record({
  settings: fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  inputs: fc.option(
    fc.array(fc.record({ id: fc.string(), type: fc.constant('promptString') }), { maxLength: 2 }),
  ),
  servers: fc.option(fc.dictionary(name, otherServer, { maxKeys: 3 })),
  memvault: fc.option(fc.oneof(fc.constant(entry), otherServer)),
  layout: fc.constantFrom('  ', '    ', '\t', 'crlf'),
  decorations: fc.array(decoration, { minLength: 40, maxLength: 40 }),
  head: fc.option(lineComment),
  tail: fc.option(blockComment),
});

type Shape = typeof configs extends fc.Arbitrary<infer T> ? T : never;

function configOf(shape: Shape): Record<string, unknown> {
  const config: Record<string, unknown> = { ...shape.settings };
  if (shape.inputs) config['inputs'] = shape.inputs;
  if (shape.servers || shape.memvault) {
    config['servers'] = { ...(shape.servers ?? {}), ...(shape.memvault ? { memvault: shape.memvault } : {}) };
  }
  return config;
}

/** The config as JSONC: pretty-printed, then each line decorated as the shape says. */
function render(shape: Shape): string {
  const indent = shape.layout === 'crlf' ? 2 : shape.layout;
  const lines = JSON.stringify(configOf(shape), null, indent).split('\n');
  const out: string[] = [];
  lines.forEach((line, k) => {
    const d = shape.decorations[k % shape.decorations.length];
    const lead = /^\s*/.exec(line)?.[0] ?? '';
    if (d?.before && k > 0) out.push(`${lead}${d.before}`);
    let text = line;
    // A comma after the last member of an object or array: the next line closes it.
    const next = lines[k + 1]?.trim() ?? '';
    if (d?.trailingComma && /^[}\]]/.test(next) && !/[{[,]$/.test(text)) text += ',';
    if (d?.after) text += ` ${d.after}`;
    out.push(text);
  });
  const body = [...(shape.head ? [shape.head] : []), ...out, ...(shape.tail ? [shape.tail] : [])].join('\n');
  const text = `${body}\n`;
  return shape.layout === 'crlf' ? text.replace(/\n/g, '\r\n') : text;
}

/** The file as VS Code reads it, or a failure naming the first parse error. */
function readJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  expect(errors, `does not parse as JSONC:\n${text}`).toEqual([]);
  return value;
}

/**
 * `value` as VS Code reads it written as JSON: its parser drops a member named `__proto__` (it
 * assigns it, where JSON.parse defines it), which the generator may name; the file keeps it.
 */
const asRead = (value: unknown) => readJsonc(JSON.stringify(value)) as Record<string, unknown>;

/**
 * Every comment of `text`, in order, as jsonc-parser's scanner finds them; but those inside the
 * value of `servers.memvault`, which a replacement writes anew (they were about the old entry).
 */
function comments(text: string): string[] {
  const own = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, ['servers', 'memvault']);
  const inOwn = (at: number) => own !== undefined && at > own.offset && at < own.offset + own.length;
  const scanner = createScanner(text, false);
  const found: string[] = [];
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const comment = token === SyntaxKind.LineCommentTrivia || token === SyntaxKind.BlockCommentTrivia;
    if (comment && !inOwn(scanner.getTokenOffset())) {
      found.push(text.slice(scanner.getTokenOffset(), scanner.getPosition()));
    }
  }
  return found;
}

/** Whether a comma is followed by a `}` or `]`, comments and spaces aside. */
function hasTrailingComma(text: string): boolean {
  const scanner = createScanner(text, true);
  let previous = SyntaxKind.Unknown;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const closes = token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken;
    if (closes && previous === SyntaxKind.CommaToken) return true;
    previous = token;
  }
  return false;
}

describe('mem mcp install vscode edits a JSONC mcp.json', () => {
  it('generated files are JSONC with comments in them (the generator makes what it claims)', () => {
    fc.assert(
      fc.property(configs, (shape) => {
        expect(readJsonc(render(shape))).toEqual(asRead(configOf(shape)));
      }),
      { numRuns: 30 },
    );
    const sample = fc.sample(configs.map(render), { numRuns: 30, seed: 1 });
    expect(sample.some((text) => comments(text).length > 0)).toBe(true);
    expect(sample.some(hasTrailingComma)).toBe(true);
  });

  it('adds or replaces memvault, keeps every comment in order and every other line; it parses', () => {
    fc.assert(
      fc.property(configs, (shape) => {
        const before = render(shape);
        const result = mergeJson(before, client, entry, opts(true));
        const config = configOf(shape);
        const expected = asRead({
          ...config,
          servers: { ...((config['servers'] as object) ?? {}), memvault: entry },
        });
        if (shape.memvault === entry) {
          expect(result).toEqual({ kind: 'unchanged' });
          return;
        }
        if (result.kind !== 'changed') throw new Error(result.kind);
        expect(result.replaced).toBe(shape.memvault !== null);
        const after = readJsonc(result.text) as Record<string, unknown>;
        expect(after).toEqual(expected);
        expect(Object.keys(after)).toEqual(Object.keys(expected));
        expect(comments(result.text)).toEqual(comments(before));
        // The file's line ends throughout.
        if (shape.layout === 'crlf') expect(result.text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
        else expect(result.text).not.toContain('\r');
        if (shape.memvault === null) {
          // Added: no line lost, save one that gains a comma after its value (or the `{}` opened).
          const lost = diffArrays(before.split(/\r?\n/), result.text.split(/\r?\n/))
            .filter((c) => c.removed)
            .flatMap((c) => c.value);
          expect(lost.length).toBeLessThanOrEqual(1);
          const plain = (line: string) => line.replace(/,/g, '');
          const lines = result.text.split(/\r?\n/);
          for (const line of lost) {
            // `{} // c` opens to `{`, the new member and `} // c`.
            const empty = /^((\s*).*)\{\}(.*)$/.exec(line);
            const opened =
              empty !== null && lines.includes(`${empty[1]}{`) && lines.includes(`${empty[2]}}${empty[3]}`);
            expect(opened || lines.some((l) => l !== line && plain(l) === plain(line)), line).toBe(true);
          }
        }
        expect(mergeJson(result.text, client, entry, opts())).toEqual({ kind: 'unchanged' });
      }),
      { numRuns: 300 },
    );
  });

  it('a different memvault is a conflict without --force, whatever the comments', () => {
    const before =
      '{\n  // mine\n  "servers": {\n    "memvault": { "command": "old" }, // the old one\n  },\n}\n';
    expect(mergeJson(before, client, entry, opts())).toEqual({
      kind: 'conflict',
      existing: '{"command":"old"}',
    });
  });

  it('writes the entry after a file of comments only, keeping them', () => {
    const result = mergeJson('// nothing here yet\n', client, entry, opts());
    if (result.kind !== 'changed') throw new Error(result.kind);
    expect(result.text.startsWith('// nothing here yet\n{')).toBe(true);
    expect(readJsonc(result.text)).toEqual({ servers: { memvault: entry } });
  });

  it('keeps a comment on the last member with that member, and the file style of trailing commas', () => {
    const before = '{\n  "servers": {\n    "a": { "command": "x" }, // the a server\n  },\n}\n';
    const result = mergeJson(before, client, entry, opts());
    if (result.kind !== 'changed') throw new Error(result.kind);
    expect(result.text).toBe(
      '{\n  "servers": {\n    "a": { "command": "x" }, // the a server\n' +
        '    "memvault": {\n      "type": "stdio",\n      "command": "mem",\n      "args": ["mcp", "--vault", "/v"]\n    },\n' +
        '  },\n}\n',
    );
  });

  it('refuses comments and trailing commas in a strict JSON client, which could not read them', () => {
    for (const id of ['claude-desktop', 'claude-code', 'cursor'] as const) {
      expect(() => mergeJson('{\n  // c\n  "mcpServers": {},\n}\n', CLIENTS[id], entry, opts())).toThrow(
        /is not valid JSON \(/,
      );
    }
  });

  it('refuses what VS Code itself could not read, naming where', () => {
    expect(() => mergeJson('{\n  "servers": {\n}\n', client, entry, opts())).toThrow(
      /mcp\.json is not valid JSON with comments \(CloseBraceExpected at line 4/,
    );
  });
});
