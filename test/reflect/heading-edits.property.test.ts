// Reflect files a fact under a heading: only a real one (as the remark tree reads the note), never
// one inside a code block, and every other byte of the note stays as it was. Generated notes mix
// fences of 3 to 6 backticks or tildes, fences inside longer fences, fences never closed, and `#`
// lines inside code, against the reference: the remark tree of the result.
import fc from 'fast-check';
import type { Nodes, Root } from 'mdast';
import { describe, expect, it } from 'vitest';
import { addUnderHeading } from '../../src/reflect/apply-operations.js';
import { expireCommitments } from '../../src/reflect/commitments-note.js';
import { addLinesUnderHeading } from '../../src/vault/markdown/add-under-heading.js';
import { parseMarkdown } from '../../src/vault/markdown/parse-markdown.js';

const FACT = '- The new fact.';

const headingArb = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('Facts', 'facts', 'Other', 'Likes'))
  .map(([depth, title]) => `${'#'.repeat(depth)} ${title}`);

const codeLineArb = fc.constantFrom('# Facts', '## Facts', 'code', '- fact', '', '    # Facts', 'x = 1');

/** A fence `char × length`: a line inside it may be a shorter fence, which does not close it. */
const fenceArb: fc.Arbitrary<string[]> = fc
  .record({
    char: fc.constantFrom('`', '~'),
    length: fc.integer({ min: 3, max: 6 }),
    info: fc.constantFrom('', 'md', 'js'),
    body: fc.array(
      fc.oneof(
        codeLineArb,
        // A fence of the other character, or a shorter one: inside, not a close.
        fc.tuple(fc.constantFrom('`', '~'), fc.integer({ min: 3, max: 6 })).map(([c, n]) => c.repeat(n)),
      ),
      { maxLength: 5 },
    ),
    close: fc.constantFrom('same', 'longer', 'shorter', 'none'),
    indent: fc.constantFrom('', ' ', '   '),
  })
  .map(({ char, length, info, body, close, indent }) => {
    const open = `${indent}${char.repeat(length)}${info}`;
    const closing =
      close === 'same'
        ? [char.repeat(length)]
        : close === 'longer'
          ? [char.repeat(length + 1)]
          : close === 'shorter'
            ? [char.repeat(length - 1)]
            : [];
    return [open, ...body, ...closing];
  });

const blockArb = fc.oneof(
  headingArb.map((h) => [h]),
  fenceArb,
  fc.constantFrom(['- a'], ['Some text.'], [''], ['> ## Facts'], ['- ## Facts']),
);

const noteArb = fc
  .record({
    frontmatter: fc.boolean(),
    blocks: fc.array(blockArb, { maxLength: 8 }),
    eol: fc.constantFrom('\n', '\r\n'),
    finalEol: fc.boolean(),
  })
  .map(({ frontmatter, blocks, eol, finalEol }) => {
    const lines = [...(frontmatter ? ['---', 'title: T', '---'] : []), ...blocks.flat()];
    return lines.join(eol) + (finalEol && lines.length > 0 ? eol : '');
  });

const offsets = (node: Nodes) => [node.position?.start.offset ?? 0, node.position?.end.offset ?? 0] as const;

function headingText(text: string, node: Nodes): string {
  if (node.type !== 'heading' || node.children.length === 0) return '';
  return text.slice(offsets(node.children[0]!)[0], offsets(node.children.at(-1)!)[1]).trim();
}

/** Whether `offset` lies inside a code block (fenced or indented) of the tree. */
function inCode(tree: Root, offset: number): boolean {
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const [start, end] = offsets(node);
    if (offset < start || offset >= end) continue;
    if (node.type === 'code') return true;
    if ('children' in node) stack.push(...node.children);
  }
  return false;
}

/**
 * The real headings whose sections hold `offset`, nearest first: walking back from the top-level
 * block at `offset`, those shallower than every heading met since.
 */
function headingsOver(tree: Root, offset: number): Nodes[] {
  const at = tree.children.findIndex((node) => offsets(node)[0] <= offset && offset < offsets(node)[1]);
  const over: Nodes[] = [];
  let shallowest = Number.POSITIVE_INFINITY;
  for (let i = (at < 0 ? tree.children.length : at) - 1; i >= 0; i--) {
    const node = tree.children[i]!;
    if (node.type !== 'heading' || node.depth >= shallowest) continue;
    over.push(node);
    shallowest = node.depth;
  }
  return over;
}

const realFacts = (tree: Root, text: string) =>
  tree.children.filter((n) => n.type === 'heading' && headingText(text, n).toLowerCase() === 'facts');

describe('reflect files a fact only under a real heading', () => {
  it('a heading inside a four-backtick fence is code: the fact goes under the real one', () => {
    const text = '# Mei\n\n````md\n```\n## Facts\n```\n````\n\n## Facts\n- Likes tea.\n';
    expect(addUnderHeading(text, 'Facts', FACT)).toBe(
      '# Mei\n\n````md\n```\n## Facts\n```\n````\n\n## Facts\n- Likes tea.\n- The new fact.\n',
    );
  });

  it('a fence left open runs to the end: the new section comes after a closing fence, not inside', () => {
    const text = '# Mei\n\n~~~~\n## Facts\n~~~\n';
    expect(addUnderHeading(text, 'Facts', FACT)).toBe(
      '# Mei\n\n~~~~\n## Facts\n~~~\n~~~~\n\n## Facts\n- The new fact.\n',
    );
  });

  it('a section ending in a fence left open gets the fact after a closing fence', () => {
    const text = '## Facts\n- a\n\n```\ncode\n';
    expect(addUnderHeading(text, 'Facts', FACT)).toBe('## Facts\n- a\n\n```\ncode\n```\n- The new fact.\n');
  });

  it('generated notes: under the first real Facts heading (or a new one), outside code, the rest byte for byte', () => {
    fc.assert(
      fc.property(noteArb, (text) => {
        const before = parseMarkdown(text);
        const out = addUnderHeading(text, 'Facts', FACT);
        const at = out.indexOf(FACT);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(out.indexOf(FACT, at + 1)).toBe(-1);
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        // Everything else is byte-identical: the fact (with one line break) was inserted into the
        // text, or a section was appended after it.
        const inserted =
          out.slice(0, at) + out.slice(at + FACT.length + eol.length) === text ||
          (at >= eol.length && out.slice(0, at - eol.length) + out.slice(at + FACT.length) === text);
        const appended = out.startsWith(text);
        expect(inserted || appended).toBe(true);
        const after = parseMarkdown(out);
        expect(inCode(after, at)).toBe(false);
        const over = headingsOver(after, at);
        const facts = over.filter((h) => headingText(out, h).toLowerCase() === 'facts');
        expect(facts.length).toBeGreaterThan(0);
        const existing = realFacts(before, text);
        if (existing.length > 0) {
          // Under the first real Facts heading of the note, at the same bytes.
          expect(facts.map((h) => offsets(h)[0])).toContain(offsets(existing[0]!)[0]);
        }
        // No heading appears or disappears but the one added.
        expect(realFacts(after, out).length).toBe(existing.length || 1);
      }),
      { numRuns: 600 },
    );
  });

  it('generated notes: mem import files its lines the same way (one block, under the real heading)', () => {
    // The MCP memory-graph importer adds several lines at once; it once had its own line scanner,
    // which closed a ```` fence at its first ``` line.
    const SECOND = '- knows [[Rain]]';
    fc.assert(
      fc.property(noteArb, (text) => {
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        const { text: out, added } = addLinesUnderHeading(text, 'Facts', [FACT, SECOND]);
        expect(added).toBe(2);
        const block = `${FACT}${eol}${SECOND}`;
        const at = out.indexOf(block);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(out.indexOf(FACT, at + 1)).toBe(-1);
        const inserted =
          out.slice(0, at) + out.slice(at + block.length + eol.length) === text ||
          (at >= eol.length && out.slice(0, at - eol.length) + out.slice(at + block.length) === text);
        expect(inserted || out.startsWith(text)).toBe(true);
        const after = parseMarkdown(out);
        for (const offset of [at, at + FACT.length + eol.length]) {
          expect(inCode(after, offset)).toBe(false);
          const facts = headingsOver(after, offset).filter(
            (h) => headingText(out, h).toLowerCase() === 'facts',
          );
          expect(facts.length).toBeGreaterThan(0);
          const existing = realFacts(parseMarkdown(text), text);
          if (existing.length > 0)
            expect(facts.map((h) => offsets(h)[0])).toContain(offsets(existing[0]!)[0]);
        }
        // A second run adds nothing: a re-run after a kill repeats no line.
        expect(addLinesUnderHeading(out, 'Facts', [FACT, SECOND])).toEqual({ text: out, added: 0 });
      }),
      { numRuns: 600 },
    );
  });

  it('generated notes: expiry rewrites only pending lines outside code, the rest byte for byte', () => {
    const pending = '- pending · due 2026-01-01 · Rain · call Mei · [[2026-01-01#^e1]]';
    const withPending = noteArb.chain((text) =>
      fc.integer({ min: 0, max: 3 }).map((n) => {
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        const base = text === '' || text.endsWith('\n') ? text : `${text}${eol}`;
        return `${base}${Array.from({ length: n }, () => pending).join(eol)}`;
      }),
    );
    fc.assert(
      fc.property(withPending, (text) => {
        const { text: out } = expireCommitments(text, '2026-06-01');
        const tree = parseMarkdown(text);
        // Same length change per line: `pending` becomes `expired`, one character more each.
        const lines = text.split('\n');
        const outLines = out.split('\n');
        expect(outLines.length).toBe(lines.length);
        let offset = 0;
        for (const [i, line] of lines.entries()) {
          const changed = outLines[i] !== line;
          if (line.replace(/\r$/, '') === pending && !inCode(tree, offset)) expect(changed).toBe(true);
          if (changed) {
            expect(inCode(tree, offset)).toBe(false);
            expect(outLines[i]).toBe(line.replace('- pending', '- expired'));
          }
          offset += line.length + 1;
        }
      }),
      { numRuns: 300 },
    );
  });
});
