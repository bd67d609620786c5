import { describe, expect, it } from 'vitest';
import { hasItem, isJournalSection, journalItems } from '../../src/vault/markdown/journal-items.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';

describe("the items of a person's journal section", () => {
  it('reads list items, tasks and paragraphs as written, with the time at their start', () => {
    expect(
      journalItems(
        [
          '- 09:30 went running',
          '* 9:05 coffee with **Ana:** she moved',
          '1. 12h30 lunch',
          '- [x] 14:00 called the bank',
          '- [ ] ',
          '- [ ]',
          '-',
          '- 25:00 is no time',
          '- bought bread',
          '  with seeds',
          '\t- nested under it',
          '',
          '07:15 woke early',
          'and stayed up.',
          '',
          'A paragraph after the list.',
        ].join('\n'),
      ),
    ).toEqual([
      { time: '09:30', text: 'went running' },
      { time: '09:05', text: 'coffee with **Ana:** she moved' },
      { time: '12:30', text: 'lunch' },
      { time: '14:00', text: '[x] called the bank' },
      { text: '25:00 is no time' },
      { text: 'bought bread\nwith seeds\n- nested under it' },
      { time: '07:15', text: 'woke early\nand stayed up.' },
      { text: 'A paragraph after the list.' },
    ]);
  });

  it('keeps a nested list with its item across a blank line; a line back at the margin starts a paragraph', () => {
    expect(journalItems('- trip\n\n  - train\n  - hotel\n\nHome again.\r\n')).toEqual([
      { text: 'trip\n\n- train\n- hotel' },
      { text: 'Home again.' },
    ]);
  });

  it("counts the person's sections of a daily note, not mem's entries nor a rollup's", () => {
    const day = parseNote(
      'episodes/daily/2026-12-01.md',
      '# Tue\n\n## Notes\nFixed the bike.\n\n## Memory\n- 10:00 **Rain:** tea ^e1\n',
    );
    expect(day.sections.filter((s) => isJournalSection(day, s)).map((s) => s.anchor)).toEqual(['Notes']);
    const rollup = parseNote(
      'episodes/daily/2026-12-02.md',
      '---\ntype: rollup\nperiod: 2026-W49\n---\n# Week\n\nA summary.\n',
    );
    expect(rollup.sections.some((s) => isJournalSection(rollup, s))).toBe(false);
    // A template's headings over empty tasks hold nothing of the day.
    const blank = parseNote('episodes/daily/2026-12-03.md', '# Wed\n\n## Plan\n- [ ] \n- [ ]\n');
    expect(blank.sections.some((s) => isJournalSection(blank, s))).toBe(false);
    expect(hasItem('- [ ] \r\n-\r\n* [x]\r\n')).toBe(false);
    expect(hasItem('- [ ] \n  the task is below\n')).toBe(true);
    expect(journalItems('- [ ] \n  the task is below\n')).toEqual([{ text: '[ ] \nthe task is below' }]);
    const profile = parseNote('profile/user.md', '# User\nRain.\n');
    expect(profile.sections.some((s) => isJournalSection(profile, s))).toBe(false);
  });
});
