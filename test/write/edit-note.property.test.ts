import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { applyEdit, type NoteEdit } from '../../src/write/edit-note.js';

// Generated notes with real headings, code fences of 3–6 backticks or tildes holding `#` lines
// that name real headings, %% comments hiding a heading, CRLF or LF, with or without frontmatter,
// title and final line break. After every edit, the bytes outside the edited span are the old ones
// and the text sits under the heading the remark parse finds, never one inside code.

type Part =
  | { kind: 'heading'; level: number }
  | { kind: 'setext'; level: number }
  | { kind: 'para'; words: string }
  | { kind: 'fence'; mark: string; size: number; fake: number }
  | { kind: 'comment'; fake: number }
  | { kind: 'blank' };

const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ kind: fc.constant('heading' as const), level: fc.integer({ min: 1, max: 6 }) }),
  fc.record({
    kind: fc.constant('para' as const),
    words: fc.constantFrom('plain text', 'a *b* c', '- item', '> quote'),
  }),
  fc.record({ kind: fc.constant('setext' as const), level: fc.integer({ min: 1, max: 2 }) }),
  fc.record({
    kind: fc.constant('fence' as const),
    mark: fc.constantFrom('`', '~'),
    size: fc.integer({ min: 3, max: 6 }),
    fake: fc.integer({ min: 0, max: 5 }),
  }),
  fc.record({ kind: fc.constant('comment' as const), fake: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('blank' as const) }),
);

interface Generated {
  frontmatter: boolean;
  title: boolean;
  parts: Part[];
  crlf: boolean;
  finalBreak: boolean;
}

const noteArb: fc.Arbitrary<Generated> = fc.record({
  frontmatter: fc.boolean(),
  title: fc.boolean(),
  parts: fc.array(part, { maxLength: 12 }),
  crlf: fc.boolean(),
  finalBreak: fc.boolean(),
});

function render(n: Generated): {
  text: string;
  names: string[];
} {
  const lines: string[] = [];
  const names: string[] = [];
  if (n.frontmatter) lines.push('---', 'kind: test', '---');
  if (n.title) lines.push('# Title');
  for (const p of n.parts) {
    if (p.kind === 'heading') {
      const name = `H${names.length}`;
      names.push(name);
      // A blank line before keeps a heading from closing a list or quote lazily.
      lines.push('', `${'#'.repeat(p.level)} ${name}`);
    } else if (p.kind === 'setext') {
      const name = `H${names.length}`;
      names.push(name);
      lines.push('', name, p.level === 1 ? '===' : '---');
    } else if (p.kind === 'para') lines.push('', p.words);
    else if (p.kind === 'fence') {
      const fence = p.mark.repeat(p.size);
      lines.push(
        '',
        fence,
        `# H${p.fake}`,
        `${p.mark.repeat(3)} not a close? ${p.size > 3 ? 'yes' : ''}`.trimEnd(),
        `## H${p.fake}`,
        fence,
      );
    } else if (p.kind === 'comment') lines.push('', '%%', `## H${p.fake}`, '%%');
    else lines.push('');
  }
  const eol = n.crlf ? '\r\n' : '\n';
  let text = lines.join(eol);
  if (n.finalBreak && text !== '') text += eol;
  return { text, names };
}

const words = fc
  .array(fc.constantFrom('new words', 'second line', '- a list item', 'tail'), { minLength: 1, maxLength: 3 })
  .map((l) => l.join('\n'));

describe('applyEdit (property)', () => {
  it('changes only the edited span, and puts the text under the real heading', () => {
    fc.assert(
      fc.property(
        noteArb,
        fc.nat(),
        fc.constantFrom('append', 'prepend', 'replaceSection', 'insertUnder'),
        words,
        (n, pick, kind, added) => {
          const { text, names } = render(n);
          if ((kind === 'replaceSection' || kind === 'insertUnder') && names.length === 0) return;
          const name = names[pick % Math.max(1, names.length)]!;
          const edit: NoteEdit =
            kind === 'append'
              ? { append: added }
              : kind === 'prepend'
                ? { prepend: added }
                : kind === 'replaceSection'
                  ? { replaceSection: name, text: added }
                  : { insertUnder: name, text: added };
          const splice = applyEdit('insights/n.md', text, edit);
          const eol = text.includes('\r\n') ? '\r\n' : '\n';
          // Every byte outside the span is the old one.
          expect(splice.text.slice(0, splice.start)).toBe(text.slice(0, splice.start));
          expect(splice.text.slice(splice.end)).toBe(text.slice(splice.oldEnd));
          const block = added.replace(/\n/g, eol);
          const at = splice.text.indexOf(block, splice.start);
          expect(at).toBeGreaterThanOrEqual(splice.start);
          expect(at + block.length).toBeLessThanOrEqual(splice.end);
          // No bare LF in a CRLF note.
          if (eol === '\r\n') expect(splice.text.slice(splice.start, splice.end)).not.toMatch(/[^\r]\n/);
          const headings = parseNote('insights/n.md', splice.text).headings;
          if (kind === 'append') expect(splice.end).toBe(splice.text.length);
          if (kind === 'prepend') {
            const before = headings.filter((h) => h.end <= at);
            // The title is the first heading when it is a level 1 one with nothing but blank lines before it.
            const first = n.parts.find((p) => p.kind !== 'blank');
            const title = n.title
              ? ['Title']
              : (first?.kind === 'heading' || first?.kind === 'setext') && first.level === 1
                ? ['H0']
                : [];
            expect(before.map((h) => h.text)).toEqual(title);
            if (n.frontmatter) expect(splice.start).toBeGreaterThanOrEqual(text.indexOf('---', 3) + 3);
          }
          if (kind === 'replaceSection' || kind === 'insertUnder') {
            // The last heading before the text is the one named (insertUnder), or the one named
            // with no heading of its level or higher between (replaceSection).
            const own = headings.filter((h) => h.end <= at);
            const real = own.filter((h) => h.text === name);
            expect(real).toHaveLength(1);
            const between = own.filter((h) => h.start > real[0]!.start);
            if (kind === 'insertUnder') expect(between).toEqual([]);
            else {
              expect(between).toEqual([]);
              // The old section body is gone: nothing but the text between the heading and the next.
              const after = headings.find((h) => h.start > real[0]!.start);
              const body = splice.text.slice(real[0]!.end, after ? after.start : splice.text.length);
              expect(body.trim().replace(/^#+\s*/, '')).toBe(block.trim());
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
