import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MemError } from '../../src/core/errors.js';
import { setFrontmatterKeys } from '../../src/vault/markdown/edit-frontmatter.js';

const NOTE = [
  '---',
  '# who this is about',
  "title: 'Alice'",
  'nickname: "Al"',
  'code: 007',
  'created: 2026-11-30',
  'importance: 0.5 # set by hand',
  '',
  'nested:',
  '  city: Tokyo',
  '  since: 2020',
  'tags:',
  '  - friend',
  '  - work',
  '---',
  '# Alice',
  '',
  'Body with [[Links]] and ![[embeds]].',
  '',
].join('\n');

describe('setFrontmatterKeys', () => {
  it('changes one scalar and keeps every other byte, including an inline comment', () => {
    const out = setFrontmatterKeys(NOTE, { importance: 0.8 });
    expect(out).toBe(NOTE.replace('importance: 0.5 # set by hand', 'importance: 0.8 # set by hand'));
  });

  it('keeps quoting, 007, dates, nested keys and comments of keys it does not touch', () => {
    const out = setFrontmatterKeys(NOTE, { status: 'active' });
    expect(out).toBe(NOTE.replace('  - work\n---', '  - work\nstatus: active\n---'));
  });

  it('writes a new value that needs quoting with quotes', () => {
    expect(setFrontmatterKeys(NOTE, { code: '008' })).toBe(NOTE.replace('code: 007', 'code: "008"'));
    expect(setFrontmatterKeys(NOTE, { nickname: '[[Alice]]' })).toBe(
      NOTE.replace('nickname: "Al"', 'nickname: "[[Alice]]"'),
    );
  });

  it('replaces a list with a block list and a scalar with a list', () => {
    expect(setFrontmatterKeys(NOTE, { tags: ['friend', 'tokyo'] })).toBe(
      NOTE.replace('  - friend\n  - work\n', '  - friend\n  - tokyo\n'),
    );
    expect(setFrontmatterKeys(NOTE, { nickname: ['Al', 'Ali'] })).toBe(
      NOTE.replace('nickname: "Al"\n', 'nickname:\n  - Al\n  - Ali\n'),
    );
  });

  it('deletes a key with its whole value and nothing else', () => {
    expect(setFrontmatterKeys(NOTE, { tags: undefined })).toBe(
      NOTE.replace('tags:\n  - friend\n  - work\n', ''),
    );
    expect(setFrontmatterKeys(NOTE, { importance: undefined })).toBe(
      NOTE.replace('importance: 0.5 # set by hand\n', ''),
    );
    expect(setFrontmatterKeys(NOTE, { missing: undefined })).toBe(NOTE);
  });

  it('applies several changes at once', () => {
    const out = setFrontmatterKeys(NOTE, { title: 'Alice B', code: undefined, pinned: true });
    expect(out).toBe(
      NOTE.replace("title: 'Alice'", 'title: Alice B')
        .replace('code: 007\n', '')
        .replace('  - work\n---', '  - work\npinned: true\n---'),
    );
  });

  it('keeps CRLF line endings, in new lines too', () => {
    const crlf = NOTE.replace(/\n/g, '\r\n');
    const out = setFrontmatterKeys(crlf, { importance: 1, tags: ['a'], reflected: '2026-12-01' });
    expect(out).toBe(
      NOTE.replace('importance: 0.5', 'importance: 1')
        .replace('tags:\n  - friend\n  - work\n', 'tags:\n  - a\nreflected: 2026-12-01\n')
        .replace(/\n/g, '\r\n'),
    );
  });

  it('keeps a BOM and a body without a trailing newline', () => {
    const text = '\uFEFF---\ntitle: A\n---\nno newline at the end';
    expect(setFrontmatterKeys(text, { title: 'B' })).toBe('\uFEFF---\ntitle: B\n---\nno newline at the end');
  });

  it('adds frontmatter at the very start of a note that has none (after a BOM), never a second block', () => {
    expect(setFrontmatterKeys('# Note\nbody', { id: 'n1' })).toBe('---\nid: n1\n---\n# Note\nbody');
    expect(setFrontmatterKeys('\uFEFF# Note\r\nbody\r\n', { id: 'n1' })).toBe(
      '\uFEFF---\r\nid: n1\r\n---\r\n# Note\r\nbody\r\n',
    );
    expect(setFrontmatterKeys('', { id: 'n1' })).toBe('---\nid: n1\n---\n');
    expect(setFrontmatterKeys('# Note', { id: undefined })).toBe('# Note');
    const once = setFrontmatterKeys('body', { a: 1 });
    expect(setFrontmatterKeys(once, { b: 2 })).toBe('---\na: 1\nb: 2\n---\nbody');
  });

  it('fills an empty frontmatter block', () => {
    expect(setFrontmatterKeys('---\n---\nbody', { title: 'T' })).toBe('---\ntitle: T\n---\nbody');
    expect(setFrontmatterKeys('---\n---', { title: 'T' })).toBe('---\ntitle: T\n---');
  });

  it('fills a key that has no value', () => {
    expect(setFrontmatterKeys('---\nsource:\nx: 1\n---\n', { source: 'chat' })).toBe(
      '---\nsource: chat\nx: 1\n---\n',
    );
  });

  it('replaces a block scalar whole', () => {
    const text = '---\nsummary: |\n  line one\n  line two\nnext: 1\n---\n';
    expect(setFrontmatterKeys(text, { summary: 'short' })).toBe('---\nsummary: short\nnext: 1\n---\n');
  });

  it('refuses invalid YAML and duplicate keys, naming the note and the line', () => {
    const run = (text: string) => {
      try {
        setFrontmatterKeys(text, { a: 1 }, { label: 'profile/user.md' });
      } catch (error) {
        expect(error).toBeInstanceOf(MemError);
        return [(error as MemError).code, (error as MemError).message];
      }
      return ['changed'];
    };
    expect(run('---\ntitle: ok\nx: a: b\n---\n')).toEqual([
      'INVALID_ARGUMENT',
      'profile/user.md: frontmatter is not valid YAML (line 3); not changed',
    ]);
    expect(run('---\ntitle: ok\n\tx: 1\n---\n')).toEqual([
      'INVALID_ARGUMENT',
      'profile/user.md: frontmatter is not valid YAML (line 3); not changed',
    ]);
    expect(run('---\ntitle: a\ntitle: b\n---\n')).toEqual([
      'INVALID_ARGUMENT',
      'profile/user.md: frontmatter is not valid YAML (line 3); not changed',
    ]);
    expect(run('---\n- a\n- b\n---\n')).toEqual([
      'INVALID_ARGUMENT',
      'profile/user.md: frontmatter is not a block of `key: value` lines; not changed',
    ]);
  });

  it('does not take a thematic break after a leading blank line for frontmatter', () => {
    expect(setFrontmatterKeys('\n---\na: 1\n---\n', { b: 2 })).toBe('---\nb: 2\n---\n\n---\na: 1\n---\n');
  });

  it('for any values, the result reads back as the old data with exactly those keys changed', () => {
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      // Line breaks and blanks at either end: a block scalar's chomping decides what reads back.
      fc
        .array(fc.constantFrom('\n', '\n', ' ', '\t', 'a', '#'), { maxLength: 6 })
        .map((parts) => parts.join('')),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.constant(undefined),
    );
    const key = fc.constantFrom('title', 'code', 'tags', 'nested', 'importance', 'new key', 'id');
    fc.assert(
      fc.property(fc.dictionary(key, value), (changes) => {
        const out = setFrontmatterKeys(NOTE, changes);
        const close = out.indexOf('\n---\n', 4);
        const expected: Record<string, unknown> = parse(NOTE.slice(4, NOTE.indexOf('\n---\n', 4)));
        for (const [k, v] of Object.entries(changes)) {
          if (v === undefined) delete expected[k];
          else expected[k] = v;
        }
        expect(parse(out.slice(4, close)) ?? {}).toEqual(expected);
        expect(out.slice(close)).toBe(NOTE.slice(NOTE.indexOf('\n---\n', 4)));
      }),
      { numRuns: 300 },
    );
  });
});
