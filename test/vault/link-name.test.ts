import { describe, expect, it } from 'vitest';
import { canLinkTo, linkableAnchor, noteNameProblem } from '../../src/vault/links/link-name.js';

describe('noteNameProblem', () => {
  it('refuses names a wiki link could not spell, and \\ and : which Obsidian refuses in file names', () => {
    for (const bad of ['a[b', 'a]b', 'a#b', 'a^b', 'a|b', 'a\\b', 'a:b', '100%%.md']) {
      expect([bad, noteNameProblem(bad)]).toEqual([
        bad,
        'a note name cannot hold [ ] # ^ | \\ : or %% (links could not name it)',
      ]);
    }
  });

  it('accepts CJK, emoji, inner dots, a single % and spaces', () => {
    for (const good of ['张三.md', '🎉 party.md', 'v1.2 notes.md', '100% done.md', 'a (b).md']) {
      expect([good, noteNameProblem(good)]).toEqual([good, undefined]);
    }
  });
});

describe('canLinkTo', () => {
  it('is false only for the characters that end or split a wiki link', () => {
    expect(canLinkTo('folder/a:b')).toBe(true);
    expect(['a#b', 'a|b', 'a^b', 'a]b', 'a%%b'].map(canLinkTo)).toEqual([false, false, false, false, false]);
  });
});

describe('linkableAnchor', () => {
  it('turns the characters a heading link cannot hold into spaces, and keeps block anchors', () => {
    expect(linkableAnchor('Q&A: [[x]] #1 | ^two')).toBe('Q&A x 1 two');
    expect(linkableAnchor('^e7')).toBe('^e7');
  });
});
