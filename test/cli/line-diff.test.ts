import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/cli/line-diff.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe('lineDiff', () => {
  it('shows a changed line as a removal then an addition, with two lines of context and … for the rest', () => {
    const before = `${lines(10).join('\n')}\n`;
    const after = before.replace('line 5\n', 'line five\n');
    expect(lineDiff(before, after)).toBe(
      [' line 3', ' line 4', '-line 5', '+line five', ' line 6', ' line 7', '  …'].join('\n'),
    );
  });

  it('shows a new note as additions only', () => {
    expect(lineDiff('', '---\ntitle: A\n---\nBody\n')).toBe(
      ['+---', '+title: A', '+---', '+Body'].join('\n'),
    );
  });

  it('joins changes up to four lines apart into one run, and marks a longer gap with …', () => {
    const before = lines(20);
    const after = [...before];
    after[2] = 'changed 3';
    after[7] = 'changed 8';
    after[15] = 'changed 16';
    expect(lineDiff(`${before.join('\n')}\n`, `${after.join('\n')}\n`)).toBe(
      [
        ' line 1',
        ' line 2',
        '-line 3',
        '+changed 3',
        ' line 4',
        ' line 5',
        ' line 6',
        ' line 7',
        '-line 8',
        '+changed 8',
        ' line 9',
        ' line 10',
        '  …',
        ' line 14',
        ' line 15',
        '-line 16',
        '+changed 16',
        ' line 17',
        ' line 18',
        '  …',
      ].join('\n'),
    );
  });

  it('ignores CRLF line ends and a missing final newline', () => {
    expect(lineDiff('a\r\nb\r\nc\r\n', 'a\nb\nc\nd')).toBe([' b', ' c', '+d'].join('\n'));
  });

  it('shows an appended line at the end without a trailing …', () => {
    const before = `${lines(6).join('\n')}\n`;
    expect(lineDiff(before, `${before}line 7\n`)).toBe([' line 5', ' line 6', '+line 7'].join('\n'));
  });

  it('is empty when nothing changed', () => {
    expect(lineDiff('same\n', 'same\n')).toBe('');
  });
});
