import { describe, expect, it, vi } from 'vitest';
import type { Note } from '../../src/core/types.js';
import { boundTerms, QUERY_LIMITS, queryProblem } from '../../src/indexing/text/query-limits.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { type QueryTerm, TopKSearch } from '../../src/indexing/text/top-k-search.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

const notes: Note[] = Array.from({ length: 30 }, (_, i) =>
  parseNote(`insights/n${i}.md`, `# Note ${i}\n\n${'aaaa abandon aardvark '.repeat(20)} obsidian ${i}\n`),
);

describe('a query costs bounded work', () => {
  it('65,000 characters of one letter: no fuzzy or prefix expansion of the long term, and an answer', () => {
    const index = new TextIndex();
    for (const note of notes) index.add(note);
    const search = vi.spyOn(TopKSearch.prototype, 'search');

    const hits = index.search('a'.repeat(65_000));

    expect(hits).toEqual([]);
    const terms: QueryTerm[] = search.mock.calls[0]?.[0] ?? [];
    expect(terms.map((term) => term.term).join(' ').length).toBeLessThanOrEqual(QUERY_LIMITS.maxChars);
    expect(terms.filter((term) => term.prefix || term.fuzzy)).toEqual([]);
    search.mockRestore();
  });

  it('a query of thousands of distinct words searches only the first maxTerms', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}x`);
    expect(boundTerms(words)).toEqual(words.slice(0, QUERY_LIMITS.maxTerms));
    const index = new TextIndex();
    for (const note of notes) index.add(note);
    expect(index.search(`obsidian ${words.join(' ')}`).length).toBe(30);
  });

  it('says why a query is too long, for the servers to answer 400', () => {
    expect(queryProblem('x'.repeat(QUERY_LIMITS.maxChars))).toBeUndefined();
    expect(queryProblem('x'.repeat(65_000))).toBe('query is 65000 characters; the limit is 4000');
  });
});

describe('mem recall with a query over the limit', () => {
  it('warns on stderr and still answers', async () => {
    const { makeVault, cleanupVaults } = await import('../helpers/make-vault.js');
    const { mem } = await import('../helpers/run-cli.js');
    const root = await makeVault({ 'insights/a.md': '# A\n\nobsidian\n' });
    const out = await mem(['--vault', root, 'recall', `obsidian ${'a'.repeat(65_000)}`]);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe(
      'mem: query is 65009 characters; the limit is 4000; only the first 4000 were searched\n',
    );
    expect(out.stdout).toContain('[[a#A]]');
    await cleanupVaults();
  });
});
